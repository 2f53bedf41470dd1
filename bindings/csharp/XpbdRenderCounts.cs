// The render mesh's counts as a tearable cloth changes them (xpbd_cloth_get_render_counts).

namespace Xpbd
{
    /// <summary>
    /// A cloth's render mesh: vertices now (it grows as a tearable cloth tears), triangles (as
    /// created), and the topology version (0 as created; grows with every cut and every snapshot
    /// restore that changes the mesh: then read the indices and vertex sources again).
    /// </summary>
    public struct XpbdRenderCounts
    {
        /// <summary>Render vertices now.</summary>
        public readonly int VertexCount;
        /// <summary>Render triangles.</summary>
        public readonly int TriangleCount;
        /// <summary>Grows with every change of the mesh.</summary>
        public readonly int TopologyVersion;

        /// <summary>The counts as given.</summary>
        public XpbdRenderCounts(int vertexCount, int triangleCount, int topologyVersion)
        {
            VertexCount = vertexCount;
            TriangleCount = triangleCount;
            TopologyVersion = topologyVersion;
        }
    }
}
