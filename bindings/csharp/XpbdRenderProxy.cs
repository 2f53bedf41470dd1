// A render proxy: a fine render mesh drawn from a coarse simulated cloth.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// A fine render mesh bound to a cloth's simulated surface (xpbd_render_proxy_*): simulate a
    /// coarse mesh, draw the artist's mesh. Create it with <see cref="XpbdCloth.CreateRenderProxy(float[], uint[])"/>
    /// from the render mesh in the cloth's rest frame; each frame <see cref="WriteVertices(IntPtr, int, int, int, int, float)"/>
    /// fills the engine's vertex buffer at the frame's alpha (interpolated, blended and at any
    /// step_interval, as the cloth itself is drawn), with the render mesh's own normals.
    /// Disposing destroys the proxy; disposing its cloth or world destroys it too.
    /// </summary>
    public sealed unsafe class XpbdRenderProxy : XpbdNativeObject
    {
        // Strong: a proxy keeps its cloth (and so its world) alive for the finalizer's sake.
        readonly XpbdCloth cloth;

        /// <summary>Default <c>max_distance</c> and NULL arrays (see <see cref="XpbdRenderProxyDesc"/>).</summary>
        public static XpbdRenderProxyDesc DefaultDesc()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_render_proxy_desc();
        }

        internal XpbdRenderProxy(XpbdCloth cloth, float[] positions, uint[] indices, float maxDistance)
        {
            if (cloth == null) throw new ArgumentNullException("cloth");
            if (positions == null) throw new ArgumentNullException("positions");
            if (indices == null) throw new ArgumentNullException("indices");
            if (positions.Length % 3 != 0)
            {
                throw new XpbdBufferSizeMismatchException("positions: " + positions.Length + " floats are not a whole number of 3-float vertices");
            }
            if (indices.Length % 3 != 0)
            {
                throw new XpbdInvalidMeshException("indices: " + indices.Length + " indices are not a whole number of triangles");
            }
            this.cloth = cloth;
            XpbdRenderProxyDesc desc = DefaultDesc();
            XpbdRenderProxyId proxy;
            fixed (float* p = positions)
            fixed (uint* t = indices)
            {
                desc.positions = p;
                desc.vertex_count = (uint)(positions.Length / 3);
                desc.indices = t;
                desc.triangle_count = (uint)(indices.Length / 3);
                desc.max_distance = maxDistance;
                XpbdLibrary.Check(NativeMethods.xpbd_render_proxy_create(cloth.Id, &desc, &proxy));
            }
            Adopt(proxy.id);
            VertexCount = positions.Length / 3;
            GC.KeepAlive(cloth);
        }

        XpbdRenderProxy(XpbdCloth cloth, XpbdRenderProxyId id, int vertexCount)
        {
            this.cloth = cloth;
            Adopt(id.id);
            VertexCount = vertexCount;
        }

        /// <summary>
        /// A proxy of <paramref name="instance"/> (an instance of this proxy's cloth, from
        /// <see cref="XpbdCloth.CreateInstance"/>) sharing this proxy's binding: no search, only its
        /// own buffers. Throws <see cref="XpbdInvalidArgumentException"/> for a cloth of another mesh.
        /// </summary>
        public XpbdRenderProxy CreateInstance(XpbdCloth instance)
        {
            if (instance == null) throw new ArgumentNullException("instance");
            XpbdRenderProxyId id;
            XpbdLibrary.Check(NativeMethods.xpbd_render_proxy_create_instance(Id, instance.Id, &id));
            GC.KeepAlive(this);
            GC.KeepAlive(instance);
            return new XpbdRenderProxy(instance, id, VertexCount);
        }

        /// <summary>The cloth it draws.</summary>
        public XpbdCloth Cloth { get { return cloth; } }

        /// <summary>The native id (for the raw layer).</summary>
        public XpbdRenderProxyId Id { get { return new XpbdRenderProxyId { id = LiveId() }; } }

        /// <summary>Render vertices (the count every read and write needs).</summary>
        public int VertexCount { get; private set; }

        /// <summary>True once this proxy, its cloth or its world was disposed.</summary>
        public override bool IsDisposed { get { return base.IsDisposed || cloth.IsDisposed; } }

        /// <summary>
        /// Write positions (metres) and normals at <paramref name="alpha"/> into an interleaved vertex
        /// buffer (byte <paramref name="stride"/>, byte offsets, -1 skips an attribute), as
        /// <see cref="XpbdCloth.WriteVertices(IntPtr, int, int, int, int, float)"/>: split over the
        /// world's threads for a large proxy, no allocation.
        /// </summary>
        public void WriteVertices(IntPtr vertexBuffer, int stride, int positionOffset, int normalOffset, int vertexCount, float alpha)
        {
            if (stride < 0) throw new ArgumentOutOfRangeException("stride", stride, "must not be negative");
            if (vertexCount < 0) throw new ArgumentOutOfRangeException("vertexCount", vertexCount, "must not be negative");
            XpbdLibrary.Check(NativeMethods.xpbd_render_proxy_write_vertices(
                Id, (void*)vertexBuffer, (uint)stride, positionOffset, normalOffset, (uint)vertexCount, alpha));
            GC.KeepAlive(this);
        }

        /// <summary>
        /// <see cref="WriteVertices(IntPtr, int, int, int, int, float)"/> into a reused pinned array of
        /// interleaved vertices holding at least <see cref="VertexCount"/> vertices' span.
        /// </summary>
        public void WriteVertices<T>(XpbdPinnedArray<T> vertexBuffer, int stride, int positionOffset, int normalOffset, float alpha) where T : struct
        {
            if (vertexBuffer == null) throw new ArgumentNullException("vertexBuffer");
            IntPtr p = vertexBuffer.LivePointer();
            long bytes = (long)vertexBuffer.Length * vertexBuffer.ElementSize;
            long end = Math.Max(positionOffset, normalOffset) + 12;
            long span = VertexCount == 0 ? 0 : (long)stride * (VertexCount - 1) + end;
            // The library cannot see the array's length: check it here, or it would write past the end.
            if (span > bytes)
            {
                throw new XpbdBufferSizeMismatchException(
                    "vertexBuffer: " + bytes + " bytes for " + VertexCount + " vertices of stride " + stride + " (need " + span + ")");
            }
            WriteVertices(p, stride, positionOffset, normalOffset, VertexCount, alpha);
        }

        /// <summary>Copy render vertex positions in metres (where the cloth is now) into <c>float[3*VertexCount]</c>.</summary>
        public void ReadPositions(float[] destination)
        {
            Read(destination, false);
        }

        /// <summary>Copy positions into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadPositions(IntPtr destination, int vertexCount)
        {
            Read(destination, vertexCount, false);
        }

        /// <summary>Copy the render mesh's own unit normals at those positions into <c>float[3*VertexCount]</c>.</summary>
        public void ReadNormals(float[] destination)
        {
            Read(destination, true);
        }

        /// <summary>Copy normals into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadNormals(IntPtr destination, int vertexCount)
        {
            Read(destination, vertexCount, true);
        }

        void Read(float[] destination, bool normals)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            if (destination.Length % 3 != 0)
            {
                throw new XpbdBufferSizeMismatchException("destination: " + destination.Length + " floats are not a whole number of 3-float vertices");
            }
            fixed (float* p = destination) Read((IntPtr)p, destination.Length / 3, normals);
        }

        void Read(IntPtr destination, int vertexCount, bool normals)
        {
            if (vertexCount < 0) throw new ArgumentOutOfRangeException("vertexCount", vertexCount, "must not be negative");
            XpbdRenderProxyId id = Id;
            float* p = (float*)destination;
            XpbdLibrary.Check(normals
                ? NativeMethods.xpbd_render_proxy_read_normals(id, p, (uint)vertexCount)
                : NativeMethods.xpbd_render_proxy_read_positions(id, p, (uint)vertexCount));
            GC.KeepAlive(this);
        }

        protected override void ReleaseNative(ulong nativeId)
        {
            // Destroying the cloth or the world already freed this proxy (its id is then stale and
            // the call answers INVALID_ID, ignored).
            if (cloth.IsDisposed) return;
            NativeMethods.xpbd_render_proxy_destroy(new XpbdRenderProxyId { id = nativeId });
        }
    }
}
