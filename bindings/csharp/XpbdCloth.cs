// A cloth: a render mesh simulated by a world; results read back in render-vertex order.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// A cloth in an <see cref="XpbdWorld"/> (xpbd_cloth_*). Created from a render mesh: positions
    /// <c>float[3*vertexCount]</c> in metres and triangles <c>uint[3*triangleCount]</c>; vertices
    /// closer than the weld tolerance (default 1 µm) are simulated as one particle, and every read
    /// comes back in render-vertex order. Each read/write has three forms:
    /// <list type="bullet">
    /// <item><c>float[]</c>: pinned with <c>fixed</c> for the call;</item>
    /// <item><c>IntPtr</c> + vertex count: memory the caller keeps pinned (NativeArray, stackalloc, native);</item>
    /// <item><see cref="XpbdPinnedArray{T}"/>: an array pinned once and reused every frame (no allocation).</item>
    /// </list>
    /// Disposing destroys the cloth; disposing its world destroys it too.
    /// </summary>
    public sealed unsafe class XpbdCloth : XpbdNativeObject
    {
        // Strong: a cloth keeps its world alive, so the world's finalizer cannot destroy a cloth
        // that is still referenced.
        readonly XpbdWorld world;

        /// <summary>Default cloth settings (light cotton; compliances from the material), no mesh.</summary>
        public static XpbdClothDesc DefaultDesc()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_cloth_desc();
        }

        internal XpbdCloth(XpbdWorld world, float[] positions, uint[] indices, float[] inverseMasses, XpbdClothDesc desc)
        {
            if (world == null) throw new ArgumentNullException("world");
            if (positions == null) throw new ArgumentNullException("positions");
            if (indices == null) throw new ArgumentNullException("indices");
            int vertexCount = VertexCountOf(positions.Length, "positions");
            if (indices.Length % 3 != 0)
            {
                throw new XpbdInvalidMeshException("indices: " + indices.Length + " indices are not a whole number of triangles");
            }
            if (inverseMasses != null && inverseMasses.Length != vertexCount)
            {
                throw new XpbdBufferSizeMismatchException(
                    "inverseMasses: " + inverseMasses.Length + " values for " + vertexCount + " vertices");
            }
            this.world = world;
            XpbdClothId cloth;
            fixed (float* p = positions)
            fixed (uint* t = indices)
            fixed (float* w = inverseMasses)
            {
                desc.positions = p;
                desc.vertex_count = (uint)vertexCount;
                desc.indices = t;
                desc.triangle_count = (uint)(indices.Length / 3);
                desc.inverse_masses = w; // null when inverseMasses is null: masses from areal density
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_create(world.Id, &desc, &cloth));
            }
            Adopt(cloth.id);
            createdVertexCount = vertexCount;
            MaxExtraVertices = (int)desc.max_extra_vertices;
            GC.KeepAlive(world);
        }

        // An instance: a native cloth already created (xpbd_cloth_create_instance) with this many
        // vertices as created and this many reserved for cuts.
        XpbdCloth(XpbdWorld world, XpbdClothId id, int vertexCount, int maxExtraVertices)
        {
            this.world = world;
            Adopt(id.id);
            createdVertexCount = vertexCount;
            MaxExtraVertices = maxExtraVertices;
        }

        /// <summary>
        /// A new cloth in the same world sharing this one's immutable model (mesh, rest values,
        /// constraints) and starting from copies of its settings, pins and state
        /// (xpbd_cloth_create_instance): it steps bit for bit as this one would, and costs a copy of
        /// the state instead of building the model. Dispose it like any cloth; it outlives this one.
        /// </summary>
        public XpbdCloth CreateInstance()
        {
            XpbdClothId instance;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_create_instance(Id, &instance));
            GC.KeepAlive(this);
            return new XpbdCloth(world, instance, createdVertexCount, MaxExtraVertices);
        }

        /// <summary>
        /// Bind a fine render mesh (<paramref name="positions"/> <c>float[3*n]</c> in metres, in the
        /// cloth's rest frame: the frame its positions were given in; <paramref name="indices"/>
        /// <c>uint[3*t]</c>) to this cloth's simulated surface, with the default max distance (5 cm).
        /// Throws <see cref="XpbdInvalidMeshException"/> for a vertex farther (the message names it).
        /// </summary>
        public XpbdRenderProxy CreateRenderProxy(float[] positions, uint[] indices)
        {
            return CreateRenderProxy(positions, indices, DefaultProxyMaxDistance);
        }

        /// <summary>As <see cref="CreateRenderProxy(float[], uint[])"/> with <paramref name="maxDistance"/> metres (&gt; 0).</summary>
        public XpbdRenderProxy CreateRenderProxy(float[] positions, uint[] indices, float maxDistance)
        {
            return new XpbdRenderProxy(this, positions, indices, maxDistance);
        }

        static float DefaultProxyMaxDistance { get { return XpbdRenderProxy.DefaultDesc().max_distance; } }

        /// <summary>
        /// Whether the cloth sleeps (its sleep_speed setting: a still cloth stops stepping until a
        /// change that could move it wakes it: the list at sleep_speed).
        /// </summary>
        public bool IsSleeping
        {
            get
            {
                uint sleeping;
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_is_sleeping(Id, &sleeping));
                GC.KeepAlive(this);
                return sleeping != 0;
            }
        }

        /// <summary>Wake a sleeping cloth: it steps again from the next step on.</summary>
        public void Wake()
        {
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_wake(Id));
            GC.KeepAlive(this);
        }

        /// <summary>The world this cloth lives in.</summary>
        public XpbdWorld World { get { return world; } }

        /// <summary>The native id (for the raw layer).</summary>
        public XpbdClothId Id { get { return new XpbdClothId { id = LiveId() }; } }

        readonly int createdVertexCount;

        /// <summary>
        /// Render vertices now (the count every read and <c>float[3*VertexCount]</c> buffer needs).
        /// A tearable cloth (<see cref="MaxExtraVertices"/> &gt; 0) gains vertices as it tears: this
        /// asks the library each time (<see cref="RenderCounts"/>); otherwise it is the count the
        /// cloth was created with.
        /// </summary>
        public int VertexCount
        {
            get { return MaxExtraVertices > 0 ? RenderCounts.VertexCount : createdVertexCount; }
        }

        /// <summary>
        /// Render vertices reserved for cuts when the cloth was created (<c>max_extra_vertices</c>); 0:
        /// it cannot tear. Size engine vertex buffers for <c>VertexCount + MaxExtraVertices</c> once.
        /// </summary>
        public int MaxExtraVertices { get; private set; }

        /// <summary>
        /// The render mesh's vertex and triangle counts and its topology version
        /// (xpbd_cloth_get_render_counts): when the version changes, read
        /// <see cref="ReadIndices(uint[])"/> and <see cref="ReadVertexSources(uint[])"/> again and
        /// rebuild the engine mesh. Never waits for a step.
        /// </summary>
        public XpbdRenderCounts RenderCounts
        {
            get
            {
                uint vertices, triangles, version;
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_render_counts(Id, &vertices, &triangles, &version));
                GC.KeepAlive(this);
                return new XpbdRenderCounts((int)vertices, (int)triangles, (int)version);
            }
        }

        /// <summary>
        /// Cut the edge between render vertices <paramref name="a"/> and <paramref name="b"/> now
        /// (xpbd_cloth_tear): the triangles sharing it are separated, vertices split where the mesh
        /// comes apart. Returns whether the mesh changed (false: the edge was already cut or is on the
        /// border). Throws <see cref="XpbdInvalidArgumentException"/> (cannot tear, a vertex out of
        /// range, not an edge) or <see cref="XpbdCapacityExceededException"/> (out of
        /// <see cref="MaxExtraVertices"/>), changing nothing.
        /// </summary>
        public bool Tear(uint a, uint b)
        {
            int before = RenderCounts.TopologyVersion;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_tear(Id, a, b));
            GC.KeepAlive(this);
            return RenderCounts.TopologyVersion != before;
        }

        /// <summary>
        /// Copy the render triangles into <paramref name="destination"/>, <c>uint[3*TriangleCount]</c>
        /// render vertex indices (xpbd_cloth_read_indices): the indices as created, with the vertices
        /// cuts added where the cloth tore.
        /// </summary>
        public void ReadIndices(uint[] destination)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            if (destination.Length % 3 != 0)
            {
                throw new XpbdBufferSizeMismatchException("destination: " + destination.Length + " indices are not a whole number of triangles");
            }
            fixed (uint* p = destination)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_read_indices(Id, p, (uint)(destination.Length / 3)));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// Copy each render vertex's source, the vertex as created it was split from (itself for a
        /// vertex as created), into <paramref name="destination"/>, <c>uint[VertexCount]</c>
        /// (xpbd_cloth_read_vertex_sources): copy UVs and colours of a new vertex from its source.
        /// </summary>
        public void ReadVertexSources(uint[] destination)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            ReadVertexSources(destination, destination.Length);
        }

        /// <summary>
        /// <see cref="ReadVertexSources(uint[])"/> into the first <paramref name="vertexCount"/>
        /// entries of <paramref name="destination"/> (an array sized once for
        /// <c>VertexCount + MaxExtraVertices</c>); <paramref name="vertexCount"/> must be the current
        /// <see cref="VertexCount"/>.
        /// </summary>
        public void ReadVertexSources(uint[] destination, int vertexCount)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            if (vertexCount < 0 || vertexCount > destination.Length)
            {
                throw new XpbdBufferSizeMismatchException("destination: " + destination.Length + " entries for " + vertexCount + " vertices");
            }
            fixed (uint* p = destination)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_read_vertex_sources(Id, p, (uint)vertexCount));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// The volume the cloth encloses now in m³ (xpbd_cloth_get_volume), for a closed cloth
        /// (<c>closed</c> in <see cref="GetMeshReport"/>); throws <see cref="XpbdInvalidArgumentException"/>
        /// for an open or torn one.
        /// </summary>
        public float Volume
        {
            get
            {
                float volume;
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_volume(Id, &volume));
                GC.KeepAlive(this);
                return volume;
            }
        }

        /// <summary>True once this cloth or its world was disposed.</summary>
        public override bool IsDisposed { get { return base.IsDisposed || world.IsDisposed; } }

        /// <summary>Simulated particles (render vertices after welding).</summary>
        public int ParticleCount
        {
            get
            {
                uint count;
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_particle_count(Id, &count));
                GC.KeepAlive(this);
                return (int)count;
            }
        }

        // ---- Reading results: positions [m] and unit normals, float[3*VertexCount] ----

        /// <summary>Copy positions in metres into <paramref name="destination"/>, <c>float[3*VertexCount]</c>.</summary>
        public void ReadPositions(float[] destination)
        {
            Read(destination, false);
        }

        /// <summary>Copy positions into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadPositions(IntPtr destination, int vertexCount)
        {
            Read(destination, vertexCount, false);
        }

        /// <summary>Copy positions into a reused pinned array (no allocation).</summary>
        public void ReadPositions<T>(XpbdPinnedArray<T> destination) where T : struct
        {
            if (destination == null) throw new ArgumentNullException("destination");
            Read(destination.LivePointer(), destination.VertexCount, false);
        }

        /// <summary>Copy unit normals into <paramref name="destination"/>, <c>float[3*VertexCount]</c>.</summary>
        public void ReadNormals(float[] destination)
        {
            Read(destination, true);
        }

        /// <summary>Copy unit normals into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadNormals(IntPtr destination, int vertexCount)
        {
            Read(destination, vertexCount, true);
        }

        /// <summary>Copy unit normals into a reused pinned array (no allocation).</summary>
        public void ReadNormals<T>(XpbdPinnedArray<T> destination) where T : struct
        {
            if (destination == null) throw new ArgumentNullException("destination");
            Read(destination.LivePointer(), destination.VertexCount, true);
        }

        void Read(float[] destination, bool normals)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            int vertexCount = VertexCountOf(destination.Length, "destination");
            fixed (float* p = destination) Read((IntPtr)p, vertexCount, normals);
        }

        void Read(IntPtr destination, int vertexCount, bool normals)
        {
            XpbdClothId id = Id;
            uint count = Count(vertexCount, "vertexCount");
            float* p = (float*)destination;
            XpbdLibrary.Check(normals
                ? NativeMethods.xpbd_cloth_read_normals(id, p, count)
                : NativeMethods.xpbd_cloth_read_positions(id, p, count));
            GC.KeepAlive(this);
        }

        // ---- The frame loop: reads between the last two step states, vertex buffers, bounds ----

        /// <summary>
        /// Positions in metres at <paramref name="alpha"/> (0..1, from <see cref="XpbdWorld.Advance"/>)
        /// between the state before the last step (0) and after it (1), <c>float[3*VertexCount]</c>:
        /// (1 − alpha)·previous + alpha·current. After a teleport or snapshot restore both states are
        /// the current one, so the cloth is never drawn between two places. With an animated pose and
        /// <c>simulation_blend</c> below 1 both states are blended with their own pose first, so 1
        /// returns exactly what <see cref="ReadPositions(float[])"/> returns.
        /// </summary>
        public void ReadPositionsInterpolated(float alpha, float[] destination)
        {
            ReadInterpolated(alpha, destination, false);
        }

        /// <summary>Interpolated positions into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadPositionsInterpolated(float alpha, IntPtr destination, int vertexCount)
        {
            ReadInterpolated(alpha, destination, vertexCount, false);
        }

        /// <summary>Interpolated positions into a reused pinned array (no allocation).</summary>
        public void ReadPositionsInterpolated<T>(float alpha, XpbdPinnedArray<T> destination) where T : struct
        {
            if (destination == null) throw new ArgumentNullException("destination");
            ReadInterpolated(alpha, destination.LivePointer(), destination.VertexCount, false);
        }

        /// <summary>Normals interpolated as <see cref="ReadPositionsInterpolated(float, float[])"/> (not renormalised; a shader normalises).</summary>
        public void ReadNormalsInterpolated(float alpha, float[] destination)
        {
            ReadInterpolated(alpha, destination, true);
        }

        /// <summary>Interpolated normals into caller-pinned memory holding <paramref name="vertexCount"/> × 3 floats.</summary>
        public void ReadNormalsInterpolated(float alpha, IntPtr destination, int vertexCount)
        {
            ReadInterpolated(alpha, destination, vertexCount, true);
        }

        /// <summary>Interpolated normals into a reused pinned array (no allocation).</summary>
        public void ReadNormalsInterpolated<T>(float alpha, XpbdPinnedArray<T> destination) where T : struct
        {
            if (destination == null) throw new ArgumentNullException("destination");
            ReadInterpolated(alpha, destination.LivePointer(), destination.VertexCount, true);
        }

        void ReadInterpolated(float alpha, float[] destination, bool normals)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            int vertexCount = VertexCountOf(destination.Length, "destination");
            fixed (float* p = destination) ReadInterpolated(alpha, (IntPtr)p, vertexCount, normals);
        }

        void ReadInterpolated(float alpha, IntPtr destination, int vertexCount, bool normals)
        {
            XpbdClothId id = Id;
            uint count = Count(vertexCount, "vertexCount");
            float* p = (float*)destination;
            XpbdLibrary.Check(normals
                ? NativeMethods.xpbd_cloth_read_normals_interpolated(id, alpha, p, count)
                : NativeMethods.xpbd_cloth_read_positions_interpolated(id, alpha, p, count));
            GC.KeepAlive(this);
        }

        /// <summary>
        /// Write interpolated positions (metres) and normals at <paramref name="alpha"/> straight into
        /// an interleaved vertex buffer (xpbd_cloth_write_vertices): vertex v's position goes to the 12
        /// bytes at <paramref name="vertexBuffer"/> + v·<paramref name="stride"/> + <paramref name="positionOffset"/>,
        /// its normal to ... + <paramref name="normalOffset"/>; −1 skips an attribute. No other byte is
        /// touched; any alignment works. The memory must span stride·(vertexCount − 1) + largest offset + 12 bytes.
        /// </summary>
        public void WriteVertices(IntPtr vertexBuffer, int stride, int positionOffset, int normalOffset, int vertexCount, float alpha)
        {
            if (stride < 0) throw new ArgumentOutOfRangeException("stride", stride, "must not be negative");
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_write_vertices(
                Id, (void*)vertexBuffer, (uint)stride, positionOffset, normalOffset, Count(vertexCount, "vertexCount"), alpha));
            GC.KeepAlive(this);
        }

        /// <summary>
        /// <see cref="WriteVertices(IntPtr, int, int, int, int, float)"/> into a reused pinned array of
        /// interleaved vertices (e.g. a struct of position, normal and UV, <paramref name="stride"/> =
        /// its size) holding at least <see cref="VertexCount"/> vertices' span; no allocation.
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

        /// <summary>The axis-aligned box in metres around the last two step states (so around every interpolated read), for culling.</summary>
        public void GetBounds(out XpbdVector3 min, out XpbdVector3 max)
        {
            float* lo = stackalloc float[3];
            float* hi = stackalloc float[3];
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_bounds(Id, lo, hi));
            GC.KeepAlive(this);
            min = new XpbdVector3(lo[0], lo[1], lo[2]);
            max = new XpbdVector3(hi[0], hi[1], hi[2]);
        }

        // ---- Particle writes: render vertices, float[3*count] ----

        /// <summary>
        /// Put <paramref name="vertices"/> (null = every vertex in render order) at <paramref name="positions"/>
        /// in metres (<c>float[3*count]</c>) between steps, for engine-side effects (a mouse drag is a grab): velocities stay, a pinned
        /// vertex moves with its pin, the moved vertices are drawn where put. Throws
        /// <see cref="XpbdInvalidArgumentException"/> (index out of range, NaN, beyond 1e5 m) and
        /// <see cref="XpbdBufferSizeMismatchException"/>; nothing changes then.
        /// </summary>
        public void SetPositions(uint[] vertices, float[] positions)
        {
            WriteParticles(vertices, positions, false);
        }

        /// <summary>
        /// Set the velocities in m/s of <paramref name="vertices"/> (null = every vertex) to
        /// <paramref name="velocities"/> (<c>float[3*count]</c>); a speed above the cloth's
        /// max_particle_speed throws <see cref="XpbdInvalidArgumentException"/>.
        /// </summary>
        public void SetVelocities(uint[] vertices, float[] velocities)
        {
            WriteParticles(vertices, velocities, true);
        }

        void WriteParticles(uint[] vertices, float[] values, bool velocities)
        {
            if (values == null) throw new ArgumentNullException(velocities ? "velocities" : "positions");
            int count = VertexCountOf(values.Length, velocities ? "velocities" : "positions");
            if (vertices != null && vertices.Length != count)
            {
                throw new XpbdBufferSizeMismatchException(
                    (velocities ? "velocities" : "positions") + ": " + count + " vectors for " + vertices.Length + " vertices");
            }
            fixed (uint* v = vertices)
            fixed (float* p = values)
            {
                XpbdClothId id = Id;
                XpbdLibrary.Check(velocities
                    ? NativeMethods.xpbd_cloth_set_velocities(id, v, (uint)count, p)
                    : NativeMethods.xpbd_cloth_set_positions(id, v, (uint)count, p));
            }
            GC.KeepAlive(this);
        }

        /// <summary>The render vertex → particle map, <c>uint[VertexCount]</c> (welded copies share a particle).</summary>
        public void ReadParticleMap(uint[] destination)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            fixed (uint* p = destination)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_read_particle_map(Id, p, (uint)destination.Length));
            }
            GC.KeepAlive(this);
        }

        // ---- Pins: render vertex indices, targets in metres float[3*count] ----

        /// <summary>Pin <paramref name="vertices"/> where they are now.</summary>
        public void SetPinned(uint[] vertices)
        {
            SetPinned(vertices, null);
        }

        /// <summary>Pin <paramref name="vertices"/> at <paramref name="targets"/> (<c>float[3*vertices.Length]</c>; null = where they are), reached by the end of the next step.</summary>
        public void SetPinned(uint[] vertices, float[] targets)
        {
            WithPins(vertices, targets, false, PinCall.SetPinned);
        }

        /// <summary>Pin <paramref name="count"/> vertices from caller-pinned memory; <paramref name="targets"/> may be IntPtr.Zero (= where they are).</summary>
        public void SetPinned(IntPtr vertices, int count, IntPtr targets)
        {
            PinRaw(vertices, count, targets, PinCall.SetPinned);
        }

        /// <summary>Move pinned <paramref name="vertices"/> to <paramref name="targets"/> (<c>float[3*vertices.Length]</c>), reached by the end of the next step.</summary>
        public void SetPinTargets(uint[] vertices, float[] targets)
        {
            WithPins(vertices, targets, true, PinCall.SetPinTargets);
        }

        /// <summary>Move pinned vertices, from caller-pinned memory: <paramref name="count"/> indices and 3·count floats.</summary>
        public void SetPinTargets(IntPtr vertices, int count, IntPtr targets)
        {
            PinRaw(vertices, count, targets, PinCall.SetPinTargets);
        }

        /// <summary>Move pinned vertices every frame from reused pinned arrays (no allocation).</summary>
        public void SetPinTargets<T>(XpbdPinnedArray<uint> vertices, XpbdPinnedArray<T> targets) where T : struct
        {
            if (vertices == null) throw new ArgumentNullException("vertices");
            if (targets == null) throw new ArgumentNullException("targets");
            if (targets.VertexCount != vertices.Length)
            {
                throw new XpbdBufferSizeMismatchException(
                    "targets: " + targets.VertexCount + " positions for " + vertices.Length + " pinned vertices");
            }
            PinRaw(vertices.LivePointer(), vertices.Length, targets.LivePointer(), PinCall.SetPinTargets);
        }

        /// <summary>Release pinned <paramref name="vertices"/> (unpinned ones are ignored).</summary>
        public void Unpin(uint[] vertices)
        {
            WithPins(vertices, null, false, PinCall.Unpin);
        }

        /// <summary>Release <paramref name="count"/> pinned vertices from caller-pinned memory.</summary>
        public void Unpin(IntPtr vertices, int count)
        {
            PinRaw(vertices, count, IntPtr.Zero, PinCall.Unpin);
        }

        /// <summary>
        /// Grab <paramref name="vertex"/> (xpbd_cloth_grab): pull it towards (<paramref name="x"/>,
        /// <paramref name="y"/>, <paramref name="z"/>) metres with a compliant attachment of
        /// <paramref name="stiffness"/> N/m (float.PositiveInfinity: rigid, the vertex keeps its
        /// mass), reached by the end of the next step. The cloth pulls back, so a grab never
        /// stretches it the way a dragged pin does. Adding and releasing a grab rebuild nothing. A
        /// mouse drag: Grab on button down, <see cref="GrabMove"/> every frame, <see cref="Release"/>
        /// on button up. Grabbing a grabbed vertex moves its target and sets its stiffness. Throws
        /// <see cref="XpbdInvalidArgumentException"/> for a vertex out of range, a target coordinate
        /// NaN, infinite or beyond ±1e5 m, or a stiffness NaN, ≤ 0 or above 1e12 N/m. Allocates nothing.
        /// </summary>
        public void Grab(uint vertex, float x, float y, float z, float stiffness)
        {
            float* target = stackalloc float[3];
            target[0] = x;
            target[1] = y;
            target[2] = z;
            XpbdResult result = NativeMethods.xpbd_cloth_grab(Id, vertex, target, stiffness);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        /// <summary>
        /// Move the grab of <paramref name="vertex"/> to (<paramref name="x"/>, <paramref name="y"/>,
        /// <paramref name="z"/>) metres, reached by the end of the next step (xpbd_cloth_grab_move).
        /// Throws <see cref="XpbdNotGrabbedException"/> for a vertex that is not grabbed,
        /// <see cref="XpbdInvalidArgumentException"/> for a bad vertex or target. Allocates nothing.
        /// </summary>
        public void GrabMove(uint vertex, float x, float y, float z)
        {
            float* target = stackalloc float[3];
            target[0] = x;
            target[1] = y;
            target[2] = z;
            XpbdResult result = NativeMethods.xpbd_cloth_grab_move(Id, vertex, target);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        /// <summary>
        /// Release the grab of <paramref name="vertex"/> (xpbd_cloth_release); it keeps its velocity.
        /// Throws <see cref="XpbdNotGrabbedException"/> for a vertex that is not grabbed.
        /// </summary>
        public void Release(uint vertex)
        {
            XpbdResult result = NativeMethods.xpbd_cloth_release(Id, vertex);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        enum PinCall { SetPinned, SetPinTargets, Unpin }

        void WithPins(uint[] vertices, float[] targets, bool targetsRequired, PinCall call)
        {
            if (vertices == null) throw new ArgumentNullException("vertices");
            if (targets == null && targetsRequired) throw new ArgumentNullException("targets");
            // The library cannot see the length of `targets`: check it here, or it would read past the end.
            if (targets != null && targets.Length != 3 * (long)vertices.Length)
            {
                throw new XpbdBufferSizeMismatchException(
                    "targets: " + targets.Length + " floats for " + vertices.Length + " vertices (need 3 per vertex)");
            }
            fixed (uint* v = vertices)
            fixed (float* t = targets)
            {
                PinRaw((IntPtr)v, vertices.Length, (IntPtr)t, call);
            }
        }

        void PinRaw(IntPtr vertices, int count, IntPtr targets, PinCall call)
        {
            XpbdClothId id = Id;
            uint n = Count(count, "count");
            uint* v = (uint*)vertices;
            float* t = (float*)targets;
            XpbdResult result;
            switch (call)
            {
                case PinCall.SetPinned: result = NativeMethods.xpbd_cloth_set_pinned(id, v, n, t); break;
                case PinCall.SetPinTargets: result = NativeMethods.xpbd_cloth_set_pin_targets(id, v, n, t); break;
                default: result = NativeMethods.xpbd_cloth_unpin(id, v, n); break;
            }
            XpbdLibrary.Check(result);
            GC.KeepAlive(this);
        }

        // ---- Settings and statistics ----

        /// <summary>The cloth's current settings (read-modify-write with <see cref="SetParams"/>).</summary>
        public XpbdClothParams GetParams()
        {
            XpbdClothParams p;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_params(Id, &p));
            GC.KeepAlive(this);
            return p;
        }

        /// <summary>Replace all settings; takes effect at the next step without a jump (compliance, tether slack
        /// and strain-limit changes reach their new values over 0.25 s: <c>xpbd_cloth_set_params</c>).</summary>
        public void SetParams(XpbdClothParams settings)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_params(Id, &settings));
            GC.KeepAlive(this);
        }

        /// <summary>Replace the material (density, Young's modulus, Poisson ratio, thickness, compliances).</summary>
        public void SetMaterial(XpbdClothMaterial material)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_material(Id, &material));
            GC.KeepAlive(this);
        }

        /// <summary>
        /// What creation made of the mesh: welded vertices, duplicate triangles dropped, inconsistent
        /// winding found and triangles flipped, non-manifold edges, hinges skipped, and the total mass
        /// in kg (<c>xpbd_cloth_get_mesh_report</c>).
        /// </summary>
        public XpbdMeshReport GetMeshReport()
        {
            XpbdMeshReport report;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_mesh_report(Id, &report));
            GC.KeepAlive(this);
            return report;
        }

        /// <summary>
        /// Copy each render vertex's mass in kg into <paramref name="destination"/>
        /// (<c>float[VertexCount]</c>): its particle's mass (welded copies read the same value;
        /// infinity for vertices given inverse mass 0). Throws on a wrong length.
        /// </summary>
        public void ReadVertexMasses(float[] destination)
        {
            if (destination == null) throw new ArgumentNullException(nameof(destination));
            fixed (float* p = destination)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_read_vertex_masses(Id, p, (uint)destination.Length));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// Residual statistics of the last step (all zero before the first). The first call after a
        /// step computes the residuals (one pass over every constraint, about a tenth of a
        /// one-thread step); a step whose statistics are never read does not pay for them.
        /// </summary>
        public XpbdClothStats GetStats()
        {
            XpbdClothStats stats;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_stats(Id, &stats));
            GC.KeepAlive(this);
            return stats;
        }

        /// <summary>
        /// Move the whole cloth, its pins and their targets by a rigid transform without adding
        /// velocity: x becomes R*x + t (rotation (qx, qy, qz, qw), a unit quaternion, about the world
        /// origin, then translation (tx, ty, tz) in metres); velocities are rotated with it. For a
        /// character that respawns or dashes: pass the relative transform B*A^-1 from its old pose A
        /// to its new pose B. Throws <see cref="XpbdInvalidArgumentException"/> for NaN, a translation
        /// beyond 1e5 m or a non-unit quaternion (nothing moves).
        /// </summary>
        public void Teleport(float tx, float ty, float tz, float qx, float qy, float qz, float qw)
        {
            float* translation = stackalloc float[3];
            float* rotation = stackalloc float[4];
            translation[0] = tx; translation[1] = ty; translation[2] = tz;
            rotation[0] = qx; rotation[1] = qy; rotation[2] = qz; rotation[3] = qw;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_teleport(Id, translation, rotation));
            GC.KeepAlive(this);
        }

        // ---- Character cloth (docs/c-cpp.md, "Character cloth") ----

        /// <summary>
        /// The animated pose reached by the end of the next step: <paramref name="positions"/>
        /// <c>float[3*VertexCount]</c> in metres and optional unit <paramref name="normals"/>
        /// (same shape; null: computed from the positions). Throws on a wrong length or NaN.
        /// </summary>
        public void SetAnimatedPose(float[] positions, float[] normals)
        {
            if (positions == null) throw new ArgumentNullException("positions");
            CheckPerVertex(positions, 3, "positions");
            if (normals != null) CheckPerVertex(normals, 3, "normals");
            fixed (float* p = positions)
            fixed (float* n = normals)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_animated_pose(Id, p, n, (uint)VertexCount));
            }
            GC.KeepAlive(this);
        }

        /// <summary>Per-vertex max distance in metres (<c>float[VertexCount]</c>; 0 = kinematic on the pose), or null to clear.</summary>
        public void SetMaxDistances(float[] distances)
        {
            if (distances != null) CheckPerVertex(distances, 1, "distances");
            fixed (float* d = distances)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_max_distances(Id, d, (uint)VertexCount));
            }
            GC.KeepAlive(this);
        }

        /// <summary>Per-vertex backstop distance and radius in metres (<c>float[VertexCount]</c> each), or both null to clear.</summary>
        public void SetBackstops(float[] distances, float[] radii)
        {
            if ((distances == null) != (radii == null)) throw new ArgumentNullException(distances == null ? "distances" : "radii");
            if (distances != null) { CheckPerVertex(distances, 1, "distances"); CheckPerVertex(radii, 1, "radii"); }
            fixed (float* b = distances)
            fixed (float* r = radii)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_backstops(Id, b, r, (uint)VertexCount));
            }
            GC.KeepAlive(this);
        }

        /// <summary>Per-vertex anim drive compliance in m/N (<c>float[VertexCount]</c>), or null to clear.</summary>
        public void SetAnimDrive(float[] compliances)
        {
            if (compliances != null) CheckPerVertex(compliances, 1, "compliances");
            fixed (float* c = compliances)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_anim_drive(Id, c, (uint)VertexCount));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// Bind the pose to a skeleton (linear blend skinning): <paramref name="inverseBindMatrices"/>
        /// <c>float[16*jointCount]</c> column-major, <paramref name="jointIndices"/> <c>uint[4*VertexCount]</c>,
        /// <paramref name="jointWeights"/> <c>float[4*VertexCount]</c>. Each inverse bind matrix must be
        /// finite, nonsingular and affine (last row 0, 0, 0, 1 within 1e-3).
        /// </summary>
        /// <exception cref="XpbdInvalidArgumentException">A bad matrix (the message names the joint), index or weight.</exception>
        public void SetSkin(float[] inverseBindMatrices, uint[] jointIndices, float[] jointWeights)
        {
            if (inverseBindMatrices == null) throw new ArgumentNullException("inverseBindMatrices");
            if (jointIndices == null) throw new ArgumentNullException("jointIndices");
            if (jointWeights == null) throw new ArgumentNullException("jointWeights");
            if (inverseBindMatrices.Length == 0 || inverseBindMatrices.Length % 16 != 0)
            {
                throw new XpbdBufferSizeMismatchException("inverseBindMatrices: " + inverseBindMatrices.Length + " floats (need 16 per joint)");
            }
            if (jointIndices.Length != 4 * (long)VertexCount)
            {
                throw new XpbdBufferSizeMismatchException("jointIndices: " + jointIndices.Length + " for " + VertexCount + " vertices (need 4 per vertex)");
            }
            CheckPerVertex(jointWeights, 4, "jointWeights");
            fixed (float* m = inverseBindMatrices)
            fixed (uint* j = jointIndices)
            fixed (float* w = jointWeights)
            {
                var desc = new XpbdSkinDesc { joint_count = (uint)(inverseBindMatrices.Length / 16), inverse_bind_matrices = m, joint_indices = j, joint_weights = w };
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_skin(Id, &desc));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// The joints' world matrices for the end of the next step, <c>float[16*jointCount]</c> column-major:
        /// rotation, a nonzero scale along the joint's axes (no shear: columns orthogonal within 1e-3
        /// relative) and a translation within +-1e5 m, last row (0, 0, 0, 1). The first pose of a cloth with
        /// limits (max distance, backstop, anim drive) puts it on the pose at rest.
        /// </summary>
        /// <exception cref="XpbdInvalidArgumentException">No skin, or a bad matrix (the message names the joint and the property).</exception>
        public void SetJointMatrices(float[] matrices)
        {
            if (matrices == null) throw new ArgumentNullException("matrices");
            if (matrices.Length % 16 != 0) throw new XpbdBufferSizeMismatchException("matrices: " + matrices.Length + " floats (need 16 per joint)");
            fixed (float* m = matrices)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_joint_matrices(Id, m, (uint)(matrices.Length / 16)));
            }
            GC.KeepAlive(this);
        }

        /// <summary>The character's root for local-space inertia, reached by the end of the next step.</summary>
        public void SetReferenceFrame(XpbdPose pose)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_set_reference_frame(Id, &pose.X, &pose.Qx));
            GC.KeepAlive(this);
        }

        /// <summary>Copy the animated pose (<c>float[3*VertexCount]</c>, metres) into <paramref name="destination"/>.</summary>
        public void ReadAnimatedPositions(float[] destination)
        {
            CheckPerVertex(destination, 3, "destination");
            fixed (float* d = destination)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_read_animated_positions(Id, d, (uint)VertexCount));
            }
            GC.KeepAlive(this);
        }

        void CheckPerVertex(Array values, int perVertex, string name)
        {
            if (values == null) throw new ArgumentNullException(name);
            if (values.Length != perVertex * (long)VertexCount)
            {
                throw new XpbdBufferSizeMismatchException(
                    name + ": " + values.Length + " values for " + VertexCount + " vertices (need " + perVertex + " per vertex)");
            }
        }

        /// <summary>
        /// The explosion guard's status since the last call, then cleared: how many steps failed
        /// (<c>unstable_steps</c>, 0 = all good) and the latest failure (kind, render vertex,
        /// displacement and bound in metres, recovery). <see cref="XpbdWorld.Step"/> throws
        /// <see cref="XpbdSimulationUnstableException"/> in a step where a cloth failed.
        /// </summary>
        public XpbdClothStatus TakeStatus()
        {
            XpbdClothStatus status;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_get_status(Id, &status));
            GC.KeepAlive(this);
            return status;
        }

        /// A 64-bit hash of every particle's position and velocity (xpbd_cloth_state_hash: FNV-1a 64
        /// over the little-endian bit patterns, positions then velocities, particle order). Equal
        /// hashes after every step mean, with overwhelming probability, bitwise identical runs (for
        /// lockstep and replay checks). Not cryptographic.
        /// </summary>
        public ulong StateHash()
        {
            ulong hash;
            XpbdLibrary.Check(NativeMethods.xpbd_cloth_state_hash(Id, &hash));
            GC.KeepAlive(this);
            return hash;
        }

        /// <summary>The library's default settings (xpbd_default_cloth_params), e.g. to reset a cloth with <see cref="SetParams"/>.</summary>
        public static XpbdClothParams DefaultParams()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_cloth_params();
        }

        /// <summary>The library's default material (xpbd_default_cloth_material), for <see cref="SetMaterial"/>.</summary>
        public static XpbdClothMaterial DefaultMaterial()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_cloth_material();
        }

        /// <summary>Bytes of a snapshot of the current state (changes when the pinned vertices change or the cloth tears).</summary>
        public int StateSize
        {
            get
            {
                UIntPtr size;
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_state_size(Id, &size));
                GC.KeepAlive(this);
                return checked((int)size.ToUInt64());
            }
        }

        /// <summary>A new snapshot of the cloth's dynamic state (allocates <see cref="StateSize"/> bytes).</summary>
        public byte[] SaveState()
        {
            var buffer = new byte[StateSize];
            SaveState(buffer);
            return buffer;
        }

        /// <summary>
        /// Save the cloth's dynamic state into <paramref name="buffer"/>, which must be exactly
        /// <see cref="StateSize"/> bytes (reuse it every frame for rollback: no allocation).
        /// </summary>
        public void SaveState(byte[] buffer)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            fixed (byte* p = buffer)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_save_state(Id, p, (UIntPtr)buffer.Length));
            }
            GC.KeepAlive(this);
        }

        /// <summary>
        /// Restore a snapshot saved from this cloth or any cloth of the same mesh: the following steps
        /// are bitwise identical to those after the save. Throws <see cref="XpbdInvalidSnapshotException"/>
        /// (or <see cref="XpbdBufferSizeMismatchException"/> for a cut buffer) and changes nothing when
        /// the buffer is not such a snapshot.
        /// </summary>
        public void RestoreState(byte[] buffer)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            fixed (byte* p = buffer)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_cloth_restore_state(Id, p, (UIntPtr)buffer.Length));
            }
            GC.KeepAlive(this);
        }

        protected override void ReleaseNative(ulong nativeId)
        {
            // Destroying the world already freed this cloth. `world` may have been finalized
            // first (finalization order is not defined), which is safe to ask: its id is cleared.
            if (world.IsDisposed) return;
            // Ignored result: INVALID_ID only if the world went away concurrently (same outcome);
            // WORLD_POISONED leaves the cloth to the world's own destruction.
            NativeMethods.xpbd_cloth_destroy(new XpbdClothId { id = nativeId });
        }

        static int VertexCountOf(int floatCount, string name)
        {
            if (floatCount % 3 != 0)
            {
                throw new XpbdBufferSizeMismatchException(name + ": " + floatCount + " floats are not a whole number of 3-float vertices");
            }
            return floatCount / 3;
        }

        static uint Count(int count, string name)
        {
            if (count < 0) throw new ArgumentOutOfRangeException(name, count, "must not be negative");
            return (uint)count;
        }
    }
}
