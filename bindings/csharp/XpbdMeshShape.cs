// A mesh shape: a triangle mesh built once into a signed distance field, shared by mesh colliders.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// A triangle mesh's signed distance field in an <see cref="XpbdWorld"/> (xpbd_mesh_shape_*),
    /// made by <see cref="XpbdWorld.CreateMeshShape(float[], uint[], float, bool)"/> or
    /// <see cref="XpbdWorld.CreateMeshShapeAsync"/> and instanced by
    /// any number of colliders (<see cref="XpbdWorld.CreateMeshCollider(XpbdMeshShape, XpbdPose, XpbdColliderContact)"/>).
    /// <see cref="Destroy"/> while a collider uses it throws <see cref="XpbdInvalidArgumentException"/> and
    /// keeps it (Dispose ignores the refusal); a shape left to the garbage collector is released once its world is (or when it is
    /// finalized with no collider left). Release is SafeHandle-style (<see cref="XpbdNativeObject"/>).
    /// </summary>
    public sealed unsafe class XpbdMeshShape : XpbdNativeObject
    {
        readonly XpbdWorld world;

        internal XpbdMeshShape(XpbdWorld world, float[] positions, uint[] indices, float cellSize, bool closed, bool async)
        {
            if (world == null) throw new ArgumentNullException("world");
            if (positions == null) throw new ArgumentNullException("positions");
            if (indices == null) throw new ArgumentNullException("indices");
            if (positions.Length % 3 != 0) throw new ArgumentException("positions holds x, y, z per vertex: its length must be a multiple of 3", "positions");
            if (indices.Length % 3 != 0) throw new ArgumentException("indices holds 3 per triangle: its length must be a multiple of 3", "indices");
            this.world = world;
            XpbdMeshShapeDesc desc = NativeMethods.xpbd_default_mesh_shape_desc();
            XpbdMeshShapeId shape;
            fixed (float* p = positions)
            fixed (uint* i = indices)
            {
                desc.positions = p;
                desc.vertex_count = (uint)(positions.Length / 3);
                desc.indices = i;
                desc.triangle_count = (uint)(indices.Length / 3);
                desc.cell_size = cellSize;
                desc.closed = closed ? 1u : 0u;
                XpbdLibrary.Check(async
                    ? NativeMethods.xpbd_mesh_shape_create_async(world.Id, &desc, &shape)
                    : NativeMethods.xpbd_mesh_shape_create(world.Id, &desc, &shape));
            }
            Adopt(shape.id);
            GC.KeepAlive(world);
        }

        /// <summary>The world this shape lives in.</summary>
        public XpbdWorld World { get { return world; } }

        /// <summary>The native id (for the raw layer and <c>XpbdColliderDesc.mesh_shape</c>).</summary>
        public XpbdMeshShapeId Id { get { return new XpbdMeshShapeId { id = LiveId() }; } }

        /// <summary>True once this shape or its world was disposed.</summary>
        public override bool IsDisposed { get { return base.IsDisposed || world.IsDisposed; } }

        /// <summary>
        /// True once built (xpbd_mesh_shape_is_ready): at once for <see cref="XpbdWorld.CreateMeshShape(float[], uint[], float, bool)"/>,
        /// when the thread has finished for <see cref="XpbdWorld.CreateMeshShapeAsync"/>. Throws the
        /// build's error (<see cref="XpbdInvalidMeshException"/>, <see cref="XpbdInvalidArgumentException"/>)
        /// if it failed; such a shape never collides.
        /// </summary>
        public bool IsReady
        {
            get
            {
                uint ready;
                XpbdLibrary.Check(NativeMethods.xpbd_mesh_shape_is_ready(Id, &ready));
                GC.KeepAlive(this);
                return ready != 0;
            }
        }

        /// <summary>Build progress in 0..1 for a loading bar (xpbd_mesh_shape_progress); 1 once ended.</summary>
        public float Progress
        {
            get
            {
                float progress;
                XpbdLibrary.Check(NativeMethods.xpbd_mesh_shape_progress(Id, &progress));
                GC.KeepAlive(this);
                return progress;
            }
        }

        /// <summary>
        /// What the build found in the mesh and repaired (xpbd_mesh_shape_get_report): welded vertices,
        /// dropped degenerate and duplicate triangles, flipped triangles, boundary and non-manifold
        /// edges. Throws <see cref="XpbdNotReadyException"/> until <see cref="IsReady"/>.
        /// </summary>
        public XpbdMeshShapeReport Report
        {
            get
            {
                XpbdMeshShapeReport report;
                XpbdLibrary.Check(NativeMethods.xpbd_mesh_shape_get_report(Id, &report));
                GC.KeepAlive(this);
                return report;
            }
        }

        /// <summary>
        /// Signed distance in metres from the local point (x, y, z) to the surface (negative inside a
        /// closed mesh) and the unit outward normal (xpbd_mesh_shape_distance). Throws
        /// <see cref="XpbdNotReadyException"/> until <see cref="IsReady"/>.
        /// </summary>
        public float Distance(float x, float y, float z, out float nx, out float ny, out float nz)
        {
            float* point = stackalloc float[3];
            float* normal = stackalloc float[3];
            point[0] = x; point[1] = y; point[2] = z;
            float distance;
            XpbdLibrary.Check(NativeMethods.xpbd_mesh_shape_distance(Id, point, &distance, normal));
            GC.KeepAlive(this);
            nx = normal[0]; ny = normal[1]; nz = normal[2];
            return distance;
        }

        /// <summary>
        /// Destroy it now (xpbd_mesh_shape_destroy). Throws <see cref="XpbdInvalidArgumentException"/>
        /// while a collider uses it (dispose those first); the shape then stays alive. Use instead of
        /// <see cref="XpbdNativeObject.Dispose"/> to see that refusal: Dispose ignores it.
        /// </summary>
        public void Destroy()
        {
            XpbdLibrary.Check(NativeMethods.xpbd_mesh_shape_destroy(Id));
            GC.KeepAlive(this);
            Dispose();
        }

        protected override void ReleaseNative(ulong nativeId)
        {
            if (world.IsDisposed) return;
            // Ignored result: refused while a collider uses it (the native shape then lives until its
            // world is destroyed, which frees it), or INVALID_ID after Destroy.
            NativeMethods.xpbd_mesh_shape_destroy(new XpbdMeshShapeId { id = nativeId });
        }
    }
}
