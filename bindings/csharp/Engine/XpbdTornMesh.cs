// A tearable cloth's render mesh as an engine follows it: the topology version checked every
// frame, the indices and each vertex's source read when it changes, into arrays sized once.
// UnityEngine-free, so the Mono tests cover it; the Unity component rebuilds its Mesh from it.
using System;

namespace Xpbd
{
    /// <summary>
    /// Follows the render mesh of an <see cref="XpbdCloth"/> that may tear: call
    /// <see cref="Update"/> once per frame after the step; when it returns true, the cloth's vertex
    /// count or triangles changed: give the engine mesh <see cref="VertexCount"/> vertices, the
    /// triangles <see cref="Indices"/>, and each new vertex the attributes (UVs, colours) of its
    /// source (<see cref="CopyBySource{T}"/>). The arrays are sized once, for every vertex the cloth
    /// may add (<see cref="XpbdCloth.MaxExtraVertices"/>); a frame in which nothing tore allocates
    /// nothing.
    /// </summary>
    public sealed class XpbdTornMesh
    {
        readonly XpbdCloth cloth;
        int version = -1;

        /// <summary>Follow <paramref name="cloth"/>; the first <see cref="Update"/> reads its mesh.</summary>
        public XpbdTornMesh(XpbdCloth cloth)
        {
            if (cloth == null) throw new ArgumentNullException("cloth");
            this.cloth = cloth;
            XpbdRenderCounts counts = cloth.RenderCounts;
            Indices = new uint[3 * counts.TriangleCount];
            Sources = new uint[counts.VertexCount + cloth.MaxExtraVertices];
            MaxVertexCount = Sources.Length;
        }

        /// <summary>The most render vertices the cloth can have (as created plus its reserve).</summary>
        public int MaxVertexCount { get; private set; }

        /// <summary>Render vertices after the last <see cref="Update"/>.</summary>
        public int VertexCount { get; private set; }

        /// <summary>The topology version after the last <see cref="Update"/>.</summary>
        public int TopologyVersion { get { return version; } }

        /// <summary>The render triangles after the last <see cref="Update"/>, <c>uint[3*triangleCount]</c>.</summary>
        public uint[] Indices { get; private set; }

        /// <summary>
        /// Each render vertex's source (the vertex as created it was split from) after the last
        /// <see cref="Update"/>: entries <c>0..VertexCount</c>.
        /// </summary>
        public uint[] Sources { get; private set; }

        /// <summary>
        /// Read the render counts; when the topology version changed since the last call (or on the
        /// first call), read the indices and sources and return true.
        /// </summary>
        public bool Update()
        {
            XpbdRenderCounts counts = cloth.RenderCounts;
            if (counts.TopologyVersion == version) return false;
            cloth.ReadIndices(Indices);
            cloth.ReadVertexSources(Sources, counts.VertexCount);
            VertexCount = counts.VertexCount;
            version = counts.TopologyVersion;
            return true;
        }

        /// <summary>
        /// Per render vertex <c>v</c> below <paramref name="vertexCount"/>:
        /// <c>destination[v] = original[sources[v]]</c>, the attribute (a UV, a colour) of the vertex
        /// as created it descends from. <paramref name="original"/> holds one value per vertex as
        /// created; <paramref name="destination"/> at least <paramref name="vertexCount"/>.
        /// </summary>
        public static void CopyBySource<T>(T[] original, uint[] sources, int vertexCount, T[] destination)
        {
            if (original == null) throw new ArgumentNullException("original");
            if (sources == null) throw new ArgumentNullException("sources");
            if (destination == null) throw new ArgumentNullException("destination");
            if (vertexCount > sources.Length || vertexCount > destination.Length)
            {
                throw new XpbdBufferSizeMismatchException("destination: " + destination.Length + " entries for " + vertexCount + " vertices");
            }
            for (int v = 0; v < vertexCount; ++v)
            {
                uint s = sources[v];
                if (s >= original.Length) throw new XpbdBufferSizeMismatchException("original: " + original.Length + " values, but a vertex descends from vertex " + s);
                destination[v] = original[s];
            }
        }
    }
}
