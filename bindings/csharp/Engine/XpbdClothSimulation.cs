// The engine-neutral core of a cloth component: one mesh simulated in world space, pins that
// follow anchors, results written back in the object's local space. UnityEngine-free, so the
// Mono tests cover it; the Unity component only converts matrices and meshes.
using System;
using System.Collections.Generic;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// One cloth in its own world, simulated in world space (so moving the object makes the cloth
    /// trail behind, as real cloth does). Per fixed update: <see cref="XpbdPinGroup.MoveAnchor"/> for
    /// each group and <see cref="XpbdTrackedCollider.Follow"/> for each collider, then <see cref="Step"/>; per rendered frame: <see cref="ReadLocal"/> into the
    /// mesh's vertex and normal buffers. Nothing allocates after construction.
    /// </summary>
    public sealed class XpbdClothSimulation : IDisposable
    {
        readonly List<XpbdPinGroup> pinGroups = new List<XpbdPinGroup>();
        readonly List<XpbdTrackedCollider> colliders = new List<XpbdTrackedCollider>();
        readonly float[] worldRest;
        readonly XpbdAffine restToWorld;

        /// <param name="localPositions">Render vertices in the object's space, <c>float[3*n]</c> [m].</param>
        /// <param name="indices">Triangles, <c>uint[3*t]</c>.</param>
        /// <param name="localToWorld">The object's transform at creation.</param>
        /// <param name="cloth">Cloth settings (array fields ignored); start from <see cref="XpbdCloth.DefaultDesc"/>.</param>
        /// <param name="world">World settings; start from <see cref="XpbdWorld.DefaultDesc"/>.</param>
        public XpbdClothSimulation(float[] localPositions, uint[] indices, XpbdAffine localToWorld, XpbdClothDesc cloth, XpbdWorldDesc world)
        {
            if (localPositions == null) throw new ArgumentNullException("localPositions");
            worldRest = (float[])localPositions.Clone();
            localToWorld.TransformPoints(worldRest);
            restToWorld = localToWorld;
            World = new XpbdWorld(world);
            try
            {
                Cloth = World.CreateCloth(worldRest, indices, null, cloth);
            }
            catch
            {
                World.Dispose(); // never half-create
                throw;
            }
            Skin = new XpbdSkinDrive(Cloth, localToWorld);
        }

        /// <summary>The world (one per simulation; single-threaded worlds suit one cloth).</summary>
        public XpbdWorld World { get; private set; }

        /// <summary>The cloth.</summary>
        public XpbdCloth Cloth { get; private set; }

        /// <summary>
        /// The worn-cloth drive (skin, bone transforms, max distance, backstop); unused until
        /// <see cref="XpbdSkinDrive.BindSkin"/>. Its bind poses are relative to the mesh as placed at
        /// creation (the constructor's localToWorld).
        /// </summary>
        public XpbdSkinDrive Skin { get; private set; }

        /// <summary>
        /// Pin <paramref name="vertices"/> where they are at creation and make them follow the anchor
        /// whose transform is <paramref name="anchorToWorld"/> now. Returns the group to move.
        /// </summary>
        public XpbdPinGroup Pin(uint[] vertices, XpbdAffine anchorToWorld)
        {
            if (vertices == null) throw new ArgumentNullException("vertices");
            var group = new XpbdPinGroup(vertices, worldRest, anchorToWorld);
            try
            {
                Cloth.SetPinned(group.Vertices, group.Targets);
            }
            catch
            {
                group.Dispose();
                throw;
            }
            pinGroups.Add(group);
            return group;
        }

        /// <summary>
        /// Add an engine collider to this simulation's world (see <see cref="XpbdTrackedCollider"/>):
        /// its object's transform and world rotation now place it; call
        /// <see cref="XpbdTrackedCollider.Follow"/> before each <see cref="Step"/> to move it.
        /// Disposed with the simulation.
        /// </summary>
        public XpbdTrackedCollider AddCollider(XpbdEngineShape shape, XpbdAffine objectToWorld, float qx, float qy, float qz, float qw,
            XpbdColliderContact contact)
        {
            var collider = new XpbdTrackedCollider(World, shape, objectToWorld, qx, qy, qz, qw, contact);
            colliders.Add(collider);
            return collider;
        }

        /// <summary>Send every group's targets and the skin's bones, then advance the world by <paramref name="dt"/> seconds.</summary>
        public void Step(float dt)
        {
            SendTargets();
            World.Step(dt);
        }

        /// <summary>
        /// Once per rendered frame: send every group's targets and the skin's bones, then advance the world by
        /// <paramref name="frameDt"/> seconds in fixed steps of <paramref name="fixedDt"/> (at most
        /// <paramref name="maxSteps"/>; see <see cref="XpbdWorld.Advance"/>). The targets are reached
        /// by the end of the frame's first step. Pass the result's Alpha to <see cref="ReadLocal"/>.
        /// A recovered cloth is reported in the result, not thrown.
        /// </summary>
        public XpbdAdvance Advance(float frameDt, float fixedDt, int maxSteps)
        {
            SendTargets();
            return World.Advance(frameDt, fixedDt, maxSteps);
        }

        void SendTargets()
        {
            for (int i = 0; i < pinGroups.Count; ++i) pinGroups[i].Send(Cloth);
            Skin.Send();
        }

        /// <summary>
        /// <see cref="ReadLocal(IntPtr, IntPtr, int, XpbdAffine, XpbdAffine)"/> at <paramref name="alpha"/>
        /// between the last two step states (the Alpha of <see cref="Advance"/>), so a frame drawn
        /// between fixed steps does not judder.
        /// </summary>
        public void ReadLocal(float alpha, IntPtr positions, IntPtr normals, int vertexCount, XpbdAffine worldToLocal, XpbdAffine localToWorld)
        {
            Cloth.ReadPositionsInterpolated(alpha, positions, vertexCount);
            worldToLocal.TransformPoints(positions, vertexCount);
            if (normals != IntPtr.Zero)
            {
                Cloth.ReadNormalsInterpolated(alpha, normals, vertexCount);
                localToWorld.TransformNormalsByTranspose(normals, vertexCount);
            }
        }

        /// <summary>
        /// Read positions and normals of all <paramref name="vertexCount"/> render vertices into
        /// caller-pinned buffers (3 floats per vertex, e.g. NativeArray&lt;Vector3&gt;) in the
        /// object's local space: positions through <paramref name="worldToLocal"/>, normals through
        /// the transpose of <paramref name="localToWorld"/> (correct under non-uniform scale).
        /// <paramref name="normals"/> may be IntPtr.Zero to skip them.
        /// </summary>
        public void ReadLocal(IntPtr positions, IntPtr normals, int vertexCount, XpbdAffine worldToLocal, XpbdAffine localToWorld)
        {
            Cloth.ReadPositions(positions, vertexCount);
            worldToLocal.TransformPoints(positions, vertexCount);
            if (normals != IntPtr.Zero)
            {
                Cloth.ReadNormals(normals, vertexCount);
                localToWorld.TransformNormalsByTranspose(normals, vertexCount);
            }
        }

        /// <summary>The render proxy drawn instead of the simulated mesh, or null (see <see cref="CreateRenderProxy"/>).</summary>
        public XpbdRenderProxy RenderProxy { get; private set; }

        /// <summary>
        /// Draw a finer mesh of the same surface instead of the simulated one: <paramref name="localPositions"/>
        /// (<c>float[3*n]</c>, in the object's space, placed by the constructor's localToWorld as the
        /// simulated mesh was) and <paramref name="indices"/> bound to the cloth within
        /// <paramref name="maxDistance"/> metres. Read it with <see cref="ReadProxyLocal"/>.
        /// </summary>
        public XpbdRenderProxy CreateRenderProxy(float[] localPositions, uint[] indices, float maxDistance)
        {
            if (localPositions == null) throw new ArgumentNullException("localPositions");
            if (RenderProxy != null) throw new InvalidOperationException("the simulation already has a render proxy");
            var world = (float[])localPositions.Clone();
            restToWorld.TransformPoints(world);
            RenderProxy = Cloth.CreateRenderProxy(world, indices, maxDistance);
            return RenderProxy;
        }

        /// <summary>
        /// Once per rendered frame: the render proxy's positions and normals at <paramref name="alpha"/>
        /// into caller-pinned buffers of <paramref name="vertexCount"/> × 3 floats in the object's
        /// local space (as <see cref="ReadLocal(float, IntPtr, IntPtr, int, XpbdAffine, XpbdAffine)"/>
        /// for the simulated mesh). <paramref name="normals"/> may be IntPtr.Zero.
        /// </summary>
        public void ReadProxyLocal(float alpha, IntPtr positions, IntPtr normals, int vertexCount, XpbdAffine worldToLocal, XpbdAffine localToWorld)
        {
            if (RenderProxy == null) throw new InvalidOperationException("no render proxy: CreateRenderProxy first");
            RenderProxy.WriteVertices(positions, 12, 0, -1, vertexCount, alpha);
            worldToLocal.TransformPoints(positions, vertexCount);
            if (normals != IntPtr.Zero)
            {
                RenderProxy.WriteVertices(normals, 12, -1, 0, vertexCount, alpha);
                localToWorld.TransformNormalsByTranspose(normals, vertexCount);
            }
        }

        /// <summary>Set the cloth's <c>step_interval</c> (1 = every step; more for cloth far away, at about 1/N of the cost).</summary>
        public void SetStepInterval(int interval)
        {
            if (interval < 1) throw new ArgumentOutOfRangeException("interval", interval, "must be at least 1");
            XpbdClothParams p = Cloth.GetParams();
            if (p.step_interval == (uint)interval) return;
            p.step_interval = (uint)interval;
            Cloth.SetParams(p);
        }

        /// <summary>Destroy the world, cloth and colliders and unpin every buffer. Harmless twice.</summary>
        public void Dispose()
        {
            for (int i = 0; i < pinGroups.Count; ++i) pinGroups[i].Dispose();
            pinGroups.Clear();
            for (int i = 0; i < colliders.Count; ++i) colliders[i].Dispose();
            colliders.Clear();
            World.Dispose();
        }
    }
}
