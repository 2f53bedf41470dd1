// A world: the owner of cloths, stepped at a fixed timestep.
using System;
using System.Collections.Generic;
using System.Threading;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>What one <see cref="XpbdWorld.Advance"/> did.</summary>
    public struct XpbdAdvance
    {
        /// <summary>Fixed steps taken (equal to maxSteps when time was dropped).</summary>
        public int Steps;
        /// <summary>Where the frame lies between the last two step states, in [0, 1).</summary>
        public float Alpha;
        /// <summary>Seconds dropped because maxSteps was reached (whole steps; 0 normally).</summary>
        public float DroppedTime;
        /// <summary>True when a cloth failed its explosion guard in one of the steps and was put back (see <see cref="XpbdCloth.TakeStatus"/>).</summary>
        public bool Recovered;
    }

    /// <summary>
    /// A simulation world (xpbd_world_*). Create cloths in it with <see cref="CreateCloth(float[], uint[])"/>,
    /// call <see cref="Step"/> once per fixed update, read each cloth's positions. Disposing the
    /// world destroys its cloths and colliders too (their wrappers then throw <see cref="ObjectDisposedException"/>).
    /// Calls on one world may come from any thread; the library serialises them, except that the
    /// render reads of a cloth never wait for a step: while one runs (<see cref="Step"/> on another
    /// thread, or between <see cref="StepBegin"/> and <see cref="StepEnd"/>) they return the state
    /// before it.
    /// </summary>
    public sealed unsafe class XpbdWorld : XpbdNativeObject
    {
        // Every live world, weakly, so that DisposeAll can destroy what an editor session leaves
        // behind (native plugins stay loaded across Unity domain reloads; managed wrappers do not).
        static readonly Dictionary<ulong, WeakReference> live = new Dictionary<ulong, WeakReference>();

        /// <summary>Default settings: gravity (0, -9.81, 0) m/s², 10 substeps, 1 iteration, one thread per core.</summary>
        public static XpbdWorldDesc DefaultDesc()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_world_desc();
        }

        /// <summary>A world with the default settings.</summary>
        public XpbdWorld() : this(DefaultDesc()) { }

        /// <summary>A world with <paramref name="desc"/> (start from <see cref="DefaultDesc"/>). Throws <see cref="XpbdInvalidArgumentException"/> for impossible settings.</summary>
        public XpbdWorld(XpbdWorldDesc desc)
        {
            XpbdLibrary.EnsureLoaded();
            XpbdWorldId world;
            XpbdLibrary.Check(NativeMethods.xpbd_world_create(&desc, &world));
            Adopt(world.id);
            lock (live) live[world.id] = new WeakReference(this);
        }

        /// <summary>The native id (for the raw layer).</summary>
        public XpbdWorldId Id { get { return new XpbdWorldId { id = LiveId() }; } }

        long stepCount;

        /// <summary>Number of completed <see cref="Step"/> calls; lets readers skip frames without a new step.</summary>
        public long StepCount { get { return Interlocked.Read(ref stepCount); } }

        /// <summary>
        /// Advance every cloth by one fixed step of <paramref name="dt"/> seconds, 1e-5 ≤ dt ≤ 1 (the
        /// library's check; otherwise <see cref="XpbdInvalidArgumentException"/> and nothing moves).
        /// Throws <see cref="XpbdSimulationUnstableException"/> when a cloth failed its explosion guard:
        /// the step still happened (every cloth stepped, the unstable ones were put back; see
        /// <see cref="XpbdCloth.TakeStatus"/>), so <see cref="StepCount"/> counts it.
        /// </summary>
        public void Step(float dt)
        {
            XpbdResult result = NativeMethods.xpbd_world_step(Id, dt);
            if (result == XpbdResult.Ok || result == XpbdResult.SimulationUnstable) Interlocked.Increment(ref stepCount);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        /// <summary>
        /// <see cref="Step"/> without the exception for a recovered cloth: returns false when a
        /// cloth failed its explosion guard (the step still happened, the cloth was put back;
        /// <see cref="XpbdCloth.TakeStatus"/> says which and why), true otherwise. Misuse (a bad
        /// dt, a disposed world) still throws. Allocates nothing.
        /// </summary>
        public bool TryStep(float dt)
        {
            XpbdResult result = NativeMethods.xpbd_world_step(Id, dt);
            GC.KeepAlive(this);
            return Stepped(result);
        }

        /// <summary>
        /// A finished step's result as TryStep and TryStepEnd report it: counted and false for a
        /// recovered cloth, counted and true for OK, thrown for everything else.
        /// </summary>
        private bool Stepped(XpbdResult result)
        {
            if (result != XpbdResult.SimulationUnstable) XpbdLibrary.Check(result);
            Interlocked.Increment(ref stepCount);
            return result == XpbdResult.Ok;
        }

        /// <summary>
        /// Start a step of <paramref name="dt"/> seconds (1e-5..1) on the world's own thread and
        /// return at once (xpbd_world_step_begin), e.g. at the end of FixedUpdate; finish it with
        /// <see cref="StepEnd"/> or <see cref="TryStepEnd"/> before the next one. Until then the
        /// render reads of the world's cloths (ReadPositions, ReadNormals, their Interpolated forms,
        /// WriteVertices, GetBounds) return at once the state as it was at this call; every other
        /// call on the world or its cloths waits for the step to finish. Throws
        /// <see cref="XpbdStepInProgressException"/> when a step is already begun,
        /// <see cref="XpbdInvalidArgumentException"/> for a bad dt (nothing starts). Allocates nothing.
        /// </summary>
        public void StepBegin(float dt)
        {
            XpbdResult result = NativeMethods.xpbd_world_step_begin(Id, dt);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        /// <summary>
        /// Wait for the step <see cref="StepBegin"/> started (xpbd_world_step_end): the state is then
        /// bitwise what <see cref="Step"/> leaves, and reads return it. Throws like <see cref="Step"/>
        /// (<see cref="XpbdSimulationUnstableException"/> for a recovered cloth, counted in
        /// <see cref="StepCount"/>), and <see cref="XpbdStepNotBegunException"/> without a StepBegin.
        /// </summary>
        public void StepEnd()
        {
            XpbdResult result = NativeMethods.xpbd_world_step_end(Id);
            if (result == XpbdResult.Ok || result == XpbdResult.SimulationUnstable) Interlocked.Increment(ref stepCount);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
        }

        /// <summary>
        /// <see cref="StepEnd"/> without the exception for a recovered cloth, as <see cref="TryStep"/>:
        /// false when a cloth failed its explosion guard (the step still happened), true otherwise.
        /// Misuse (no StepBegin, a disposed world) still throws. Allocates nothing.
        /// </summary>
        public bool TryStepEnd()
        {
            XpbdResult result = NativeMethods.xpbd_world_step_end(Id);
            GC.KeepAlive(this);
            return Stepped(result);
        }

        /// <summary>
        /// Advance by one rendered frame of <paramref name="frameDt"/> seconds (0..3600) in fixed
        /// steps of <paramref name="fixedDt"/> (1e-5..1 s), at most <paramref name="maxSteps"/>
        /// (1..1000) of them (xpbd_world_advance): the world keeps the leftover time, drops whole
        /// steps beyond <paramref name="maxSteps"/>, and returns <see cref="XpbdAdvance.Alpha"/> for
        /// the interpolated reads (<see cref="XpbdCloth.ReadPositionsInterpolated(float, float[])"/>,
        /// <see cref="XpbdCloth.WriteVertices(IntPtr, int, int, int, int, float)"/>). A cloth that
        /// failed its guard is reported in <see cref="XpbdAdvance.Recovered"/>, not thrown. Allocates
        /// nothing; throws <see cref="XpbdInvalidArgumentException"/> for arguments out of range.
        /// </summary>
        public XpbdAdvance Advance(float frameDt, float fixedDt, int maxSteps)
        {
            CheckMaxSteps("Advance", maxSteps);
            uint steps = 0;
            float alpha = 0;
            XpbdResult result = NativeMethods.xpbd_world_advance(Id, frameDt, fixedDt, (uint)maxSteps, &steps, &alpha);
            GC.KeepAlive(this);
            return Advanced(result, steps, alpha, maxSteps);
        }

        /// <summary>
        /// <see cref="Advance"/> on the world's own thread, returning at once (xpbd_world_advance_begin):
        /// the render-overlap loop. Set the frame's targets, call AdvanceBegin, draw with the alpha of
        /// the last <see cref="AdvanceEnd"/> (the reads still return the state it left), then call
        /// AdvanceEnd for this frame's alpha. Every other call on the world or its cloths waits for
        /// the advance to finish. Throws <see cref="XpbdStepInProgressException"/> when a step or
        /// advance is already begun, <see cref="XpbdInvalidArgumentException"/> for arguments out of
        /// range (nothing starts). Allocates nothing.
        /// </summary>
        public void AdvanceBegin(float frameDt, float fixedDt, int maxSteps)
        {
            CheckMaxSteps("AdvanceBegin", maxSteps);
            XpbdResult result = NativeMethods.xpbd_world_advance_begin(Id, frameDt, fixedDt, (uint)maxSteps);
            GC.KeepAlive(this);
            XpbdLibrary.Check(result);
            advanceMaxSteps = maxSteps;
        }

        /// <summary>
        /// Wait for the advance <see cref="AdvanceBegin"/> started (xpbd_world_advance_end) and return
        /// what <see cref="Advance"/> returns for it; the state is bitwise the same, and reads return
        /// it. Throws <see cref="XpbdStepNotBegunException"/> without an AdvanceBegin (a StepBegin is
        /// not ended by this). Allocates nothing.
        /// </summary>
        public XpbdAdvance AdvanceEnd()
        {
            uint steps = 0;
            float alpha = 0;
            XpbdResult result = NativeMethods.xpbd_world_advance_end(Id, &steps, &alpha);
            GC.KeepAlive(this);
            return Advanced(result, steps, alpha, advanceMaxSteps);
        }

        /// <summary>maxSteps of the last <see cref="AdvanceBegin"/>, to report dropped time at its end.</summary>
        private int advanceMaxSteps = 1;

        /// <summary>
        /// The library refuses 0 itself; a negative count would wrap to a huge uint, so it is refused
        /// here with the library's exception.
        /// </summary>
        private static void CheckMaxSteps(string function, int maxSteps)
        {
            if (maxSteps < 1) throw new XpbdInvalidArgumentException(function + ": maxSteps = " + maxSteps + " is invalid: expected 1..1000");
        }

        /// <summary>An advance's outputs: a recovered cloth is reported, every other error thrown.</summary>
        private XpbdAdvance Advanced(XpbdResult result, uint steps, float alpha, int maxSteps)
        {
            bool recovered = result == XpbdResult.SimulationUnstable;
            if (!recovered) XpbdLibrary.Check(result);
            Interlocked.Add(ref stepCount, steps);
            float dropped = 0;
            if (steps == (uint)maxSteps) XpbdLibrary.Check(NativeMethods.xpbd_world_last_dropped_time(Id, &dropped));
            GC.KeepAlive(this);
            return new XpbdAdvance { Steps = (int)steps, Alpha = alpha, DroppedTime = dropped, Recovered = recovered };
        }

        /// <summary>Empty the accumulator of <see cref="Advance"/> (after a load or a pause).</summary>
        public void ResetAccumulator()
        {
            XpbdLibrary.Check(NativeMethods.xpbd_world_reset_accumulator(Id));
            GC.KeepAlive(this);
        }

        /// <summary>Gravity in m/s², used from the next step on.</summary>
        public void SetGravity(float x, float y, float z)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_world_set_gravity(Id, x, y, z));
            GC.KeepAlive(this);
        }

        /// <summary>A cloth with the default material from a render mesh (see <see cref="XpbdCloth"/>).</summary>
        public XpbdCloth CreateCloth(float[] positions, uint[] indices)
        {
            return new XpbdCloth(this, positions, indices, null, XpbdCloth.DefaultDesc());
        }

        /// <summary>A cloth with the settings of <paramref name="desc"/> (its array fields are ignored).</summary>
        public XpbdCloth CreateCloth(float[] positions, uint[] indices, float[] inverseMasses, XpbdClothDesc desc)
        {
            return new XpbdCloth(this, positions, indices, inverseMasses, desc);
        }

        // ---- Debug lines (see XpbdDebugLines for buffers that grow as needed) ----

        /// <summary>
        /// Write the debug lines <paramref name="flags"/> (XPBD_DEBUG_* or'ed) asks for into
        /// <paramref name="positions"/> (<c>float[6*n]</c>, metres) and <paramref name="colors"/>
        /// (<c>uint[n]</c>, RGBA8) and return how many there are in all: the first min(total, n) are
        /// written (xpbd_world_debug_lines). The buffers must hold the same number of lines.
        /// </summary>
        public uint DebugLines(uint flags, float[] positions, uint[] colors)
        {
            if (positions == null) throw new ArgumentNullException("positions");
            if (colors == null) throw new ArgumentNullException("colors");
            if (positions.Length != 6 * colors.Length)
            {
                throw new XpbdBufferSizeMismatchException(
                    "positions: " + positions.Length + " floats for " + colors.Length + " colours (6 floats per line)");
            }
            uint count;
            fixed (float* p = positions)
            fixed (uint* c = colors)
            {
                XpbdLibrary.Check(NativeMethods.xpbd_world_debug_lines(Id, flags, p, c, (uint)colors.Length, &count));
            }
            GC.KeepAlive(this);
            return count;
        }

        // ---- Colliders (shared by every cloth of this world; see XpbdCollider) ----

        /// <summary>A sphere of <paramref name="radius"/> metres (0 &lt; r ≤ 1e4) centred at the pose, default friction and layer.</summary>
        public XpbdCollider CreateSphere(float radius, XpbdPose pose)
        {
            return CreateSphere(radius, pose, XpbdColliderContact.Default);
        }

        /// <summary>A sphere of <paramref name="radius"/> metres centred at the pose, with <paramref name="contact"/>'s friction and layers.</summary>
        public XpbdCollider CreateSphere(float radius, XpbdPose pose, XpbdColliderContact contact)
        {
            XpbdColliderDesc desc = XpbdCollider.Desc(XpbdColliderKind.Sphere, pose, contact);
            desc.radius = radius;
            return new XpbdCollider(this, desc);
        }

        /// <summary>
        /// A capsule: the points within <paramref name="radius"/> metres of the segment from
        /// −<paramref name="halfHeight"/> to +<paramref name="halfHeight"/> metres along the pose's
        /// local Y axis (0 ≤ halfHeight ≤ 1e4; 0 is a sphere). Default friction and layer.
        /// </summary>
        public XpbdCollider CreateCapsule(float radius, float halfHeight, XpbdPose pose)
        {
            return CreateCapsule(radius, halfHeight, pose, XpbdColliderContact.Default);
        }

        /// <summary>A capsule (see <see cref="CreateCapsule(float, float, XpbdPose)"/>) with <paramref name="contact"/>'s friction and layers.</summary>
        public XpbdCollider CreateCapsule(float radius, float halfHeight, XpbdPose pose, XpbdColliderContact contact)
        {
            XpbdColliderDesc desc = XpbdCollider.Desc(XpbdColliderKind.Capsule, pose, contact);
            desc.radius = radius;
            desc.half_height = halfHeight;
            return new XpbdCollider(this, desc);
        }

        /// <summary>An infinite plane through the pose's position whose normal is the pose's local +Y; everything below is solid. Default friction and layer.</summary>
        public XpbdCollider CreatePlane(XpbdPose pose)
        {
            return CreatePlane(pose, XpbdColliderContact.Default);
        }

        /// <summary>An infinite plane (see <see cref="CreatePlane(XpbdPose)"/>) with <paramref name="contact"/>'s friction and layers.</summary>
        public XpbdCollider CreatePlane(XpbdPose pose, XpbdColliderContact contact)
        {
            return new XpbdCollider(this, XpbdCollider.Desc(XpbdColliderKind.Plane, pose, contact));
        }

        /// <summary>
        /// An oriented box of half extents (<paramref name="halfX"/>, <paramref name="halfY"/>,
        /// <paramref name="halfZ"/>) metres along the pose's local axes (each 0 &lt; h ≤ 1e4), its edges
        /// rounded by <paramref name="rounding"/> metres (0 = sharp, at most the smallest half extent;
        /// the outer size stays the half extents). Default friction and layer.
        /// </summary>
        public XpbdCollider CreateBox(float halfX, float halfY, float halfZ, float rounding, XpbdPose pose)
        {
            return CreateBox(halfX, halfY, halfZ, rounding, pose, XpbdColliderContact.Default);
        }

        /// <summary>A box (see <see cref="CreateBox(float, float, float, float, XpbdPose)"/>) with <paramref name="contact"/>'s friction and layers.</summary>
        public XpbdCollider CreateBox(float halfX, float halfY, float halfZ, float rounding, XpbdPose pose, XpbdColliderContact contact)
        {
            XpbdColliderDesc desc = XpbdCollider.Desc(XpbdColliderKind.Box, pose, contact);
            desc.half_extents[0] = halfX;
            desc.half_extents[1] = halfY;
            desc.half_extents[2] = halfZ;
            desc.radius = rounding;
            return new XpbdCollider(this, desc);
        }

        /// <summary>
        /// Build a mesh shape (a signed distance field) from a triangle mesh in its own local frame:
        /// <paramref name="positions"/> x, y, z per vertex in metres, <paramref name="indices"/> three
        /// per triangle; <paramref name="cellSize"/> metres (0 = automatic, the bounding-box diagonal
        /// / 100; keep cloth thicknesses below 4 cells); <paramref name="closed"/>: solid inside (else
        /// a two-sided open surface). Bake an engine object's scale into the positions. Returns when
        /// the build has ended (xpbd_mesh_shape_create; use <see cref="CreateMeshShapeAsync"/> in a
        /// game). Throws <see cref="XpbdInvalidMeshException"/> for no triangles, an index out of
        /// range, a NaN position or only zero-area triangles, and
        /// <see cref="XpbdInvalidArgumentException"/> for a negative or non-finite cell size or one
        /// needing more than 256 MiB.
        /// </summary>
        public XpbdMeshShape CreateMeshShape(float[] positions, uint[] indices, float cellSize, bool closed)
        {
            return new XpbdMeshShape(this, positions, indices, cellSize, closed, false);
        }

        /// <summary>
        /// <see cref="CreateMeshShape(float[], uint[], float, bool)"/> on a thread of its own
        /// (xpbd_mesh_shape_create_async): returns at once (the arrays are copied), the shape usable by
        /// colliders at once, which collide from the first step after the build ends. Poll
        /// <see cref="XpbdMeshShape.IsReady"/> and <see cref="XpbdMeshShape.Progress"/>. Throws at once
        /// for what reading the arrays finds; a build that fails later throws from IsReady.
        /// </summary>
        public XpbdMeshShape CreateMeshShapeAsync(float[] positions, uint[] indices, float cellSize, bool closed)
        {
            return new XpbdMeshShape(this, positions, indices, cellSize, closed, true);
        }

        /// <summary>A closed mesh shape with the automatic cell size (see <see cref="CreateMeshShape(float[], uint[], float, bool)"/>).</summary>
        public XpbdMeshShape CreateMeshShape(float[] positions, uint[] indices)
        {
            return new XpbdMeshShape(this, positions, indices, 0, true, false);
        }

        /// <summary>A collider instancing <paramref name="shape"/> (of this world) at the pose, default friction and layer.</summary>
        public XpbdCollider CreateMeshCollider(XpbdMeshShape shape, XpbdPose pose)
        {
            return CreateMeshCollider(shape, pose, XpbdColliderContact.Default);
        }

        /// <summary>A collider instancing <paramref name="shape"/> at the pose with <paramref name="contact"/>'s friction and layers.</summary>
        public XpbdCollider CreateMeshCollider(XpbdMeshShape shape, XpbdPose pose, XpbdColliderContact contact)
        {
            if (shape == null) throw new ArgumentNullException("shape");
            XpbdColliderDesc desc = XpbdCollider.Desc(XpbdColliderKind.Mesh, pose, contact);
            desc.mesh_shape = shape.Id;
            XpbdCollider collider = new XpbdCollider(this, desc);
            GC.KeepAlive(shape);
            return collider;
        }

        /// <summary>
        /// A collider from a full descriptor (start from <see cref="XpbdCollider.DefaultDesc(XpbdColliderKind)"/>).
        /// Throws <see cref="XpbdInvalidArgumentException"/> naming the field for an unknown kind, a
        /// dimension the kind uses that is NaN, ≤ 0 or above 1e4 m, a bad pose or friction outside
        /// 0..100; nothing is created then.
        /// </summary>
        public XpbdCollider CreateCollider(XpbdColliderDesc desc)
        {
            return new XpbdCollider(this, desc);
        }

        protected override void ReleaseNative(ulong nativeId)
        {
            lock (live) live.Remove(nativeId);
            // Ignored result: an id is only ever destroyed here, so the only failure is a world
            // already freed by native code, which is what we want anyway.
            NativeMethods.xpbd_world_destroy(new XpbdWorldId { id = nativeId });
        }

        /// <summary>
        /// Dispose every world (and so every cloth) still alive in this process. Unity calls it
        /// before an assembly reload, when leaving play mode and when quitting, so that no native
        /// object outlives the managed objects that own it. Returns how many worlds it disposed.
        /// </summary>
        public static int DisposeAll()
        {
            var worlds = new List<XpbdWorld>();
            lock (live)
            {
                foreach (WeakReference reference in live.Values)
                {
                    var world = reference.Target as XpbdWorld;
                    if (world != null) worlds.Add(world);
                }
            }
            // Outside the lock: Dispose takes it to unregister.
            foreach (XpbdWorld world in worlds) world.Dispose();
            return worlds.Count;
        }
    }
}
