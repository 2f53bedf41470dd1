// A collider: a sphere, capsule, plane or box in a world, shared by its cloths, moved by poses.
using System;
using System.Runtime.InteropServices;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// A rigid pose: position in metres and rotation local → world as a unit quaternion
    /// (x, y, z, w), the component order of Unity's and Godot's <c>Quaternion</c>. The seven floats
    /// are laid out as the C functions read them (<c>float[3]</c> then <c>float[4]</c>), so passing
    /// a pose copies nothing.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct XpbdPose
    {
        public float X, Y, Z;
        public float Qx, Qy, Qz, Qw;

        /// <summary>At (x, y, z) metres, not rotated.</summary>
        public static XpbdPose At(float x, float y, float z)
        {
            return new XpbdPose { X = x, Y = y, Z = z, Qw = 1 };
        }

        /// <summary>At (x, y, z) metres, rotated by the unit quaternion (qx, qy, qz, qw).</summary>
        public XpbdPose(float x, float y, float z, float qx, float qy, float qz, float qw)
        {
            X = x; Y = y; Z = z;
            Qx = qx; Qy = qy; Qz = qz; Qw = qw;
        }

        /// <summary>Not moved, not rotated.</summary>
        public static XpbdPose Identity { get { return At(0, 0, 0); } }
    }

    /// <summary>
    /// How a collider touches cloth: static and kinetic friction coefficients μ_s, μ_k
    /// (dimensionless, 0..100; Macklin et al. 2014, Unified Particle Physics, §6) and the collision
    /// layer bits (a cloth collides with it when <c>Layers &amp; collision_mask != 0</c>).
    /// </summary>
    public struct XpbdColliderContact
    {
        /// <summary>μ_s: a contact whose slip over a substep is below μ_s × penetration depth sticks.</summary>
        public float StaticFriction;
        /// <summary>μ_k: a sliding contact's slip is reduced by μ_k × penetration depth per substep (usually ≤ μ_s).</summary>
        public float KineticFriction;
        /// <summary>Collision layer bits.</summary>
        public uint Layers;

        public XpbdColliderContact(float staticFriction, float kineticFriction, uint layers)
        {
            StaticFriction = staticFriction;
            KineticFriction = kineticFriction;
            Layers = layers;
        }

        /// <summary>The library's defaults (xpbd_default_collider_desc: μ_s 0.5, μ_k 0.4, layer 1).</summary>
        public static XpbdColliderContact Default
        {
            get
            {
                XpbdColliderDesc d = XpbdCollider.DefaultDesc();
                return new XpbdColliderContact(d.static_friction, d.kinetic_friction, d.layers);
            }
        }
    }

    /// <summary>
    /// A collider in an <see cref="XpbdWorld"/> (xpbd_collider_*), made by the world's
    /// <c>CreateSphere</c>, <c>CreateCapsule</c>, <c>CreatePlane</c>, <c>CreateBox</c> or
    /// <c>CreateCollider</c>. Every cloth of the world whose collision mask shares a bit with its
    /// layers collides with it. Move it with <see cref="SetPose(XpbdPose)"/> once per fixed update:
    /// the pose is reached by the end of the next step, interpolated across its substeps, so a
    /// moving collider carries the cloth lying on it. Disposing destroys it (cloths stop colliding
    /// from the next step); disposing its world destroys it too. Release is SafeHandle-style
    /// (<see cref="XpbdNativeObject"/>): exactly once, possibly on the finalizer thread.
    /// </summary>
    public sealed unsafe class XpbdCollider : XpbdNativeObject
    {
        // Strong, as in XpbdCloth: a referenced collider keeps its world alive.
        readonly XpbdWorld world;

        /// <summary>
        /// A descriptor with no dimensions (xpbd_default_collider_desc): kind sphere with radius,
        /// half height and half extents all 0, at the origin, μ_s 0.5, μ_k 0.4, layer 1. Set the
        /// dimensions of the kind you choose; as it is, creating it throws
        /// <see cref="XpbdInvalidArgumentException"/> naming <c>radius</c>, so no dimension meant for
        /// one kind carries over into another. <see cref="DefaultDesc(XpbdColliderKind)"/> gives a ready shape.
        /// </summary>
        public static XpbdColliderDesc DefaultDesc()
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_collider_desc();
        }

        /// <summary>
        /// The default shape of <paramref name="kind"/> (xpbd_default_collider_desc_for), at the origin,
        /// μ_s 0.5, μ_k 0.4, layer 1: a sphere of radius 0.5 m; a capsule of radius 0.5 m and half
        /// height 0.5 m (2 m tall); the plane y = 0; a box of half extents 0.5 m with sharp edges
        /// (radius 0). The dimensions the kind does not use are 0. An undefined kind value is kept,
        /// so that creating the descriptor throws <see cref="XpbdInvalidArgumentException"/> naming <c>kind</c>.
        /// </summary>
        public static XpbdColliderDesc DefaultDesc(XpbdColliderKind kind)
        {
            XpbdLibrary.EnsureLoaded();
            return NativeMethods.xpbd_default_collider_desc_for((uint)kind);
        }

        internal XpbdCollider(XpbdWorld world, XpbdColliderDesc desc)
        {
            if (world == null) throw new ArgumentNullException("world");
            this.world = world;
            XpbdColliderId collider;
            XpbdLibrary.Check(NativeMethods.xpbd_collider_create(world.Id, &desc, &collider));
            Adopt(collider.id);
            GC.KeepAlive(world);
        }

        /// <summary>The world this collider lives in.</summary>
        public XpbdWorld World { get { return world; } }

        /// <summary>The native id (for the raw layer).</summary>
        public XpbdColliderId Id { get { return new XpbdColliderId { id = LiveId() }; } }

        /// <summary>True once this collider or its world was disposed.</summary>
        public override bool IsDisposed { get { return base.IsDisposed || world.IsDisposed; } }

        /// <summary>
        /// The pose to reach by the end of the next <see cref="XpbdWorld.Step"/> (position finite
        /// within ±1e5 m, rotation a unit quaternion to 1e-3). Calling it again before the step
        /// replaces the target. Throws <see cref="XpbdInvalidArgumentException"/> for a NaN or
        /// out-of-range position or a non-unit rotation; the target is then unchanged. Allocates nothing.
        /// </summary>
        public void SetPose(XpbdPose pose)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_collider_set_pose(Id, &pose.X, &pose.Qx));
            GC.KeepAlive(this);
        }

        /// <summary>Position (x, y, z) in metres and rotation (qx, qy, qz, qw); see <see cref="SetPose(XpbdPose)"/>.</summary>
        public void SetPose(float x, float y, float z, float qx, float qy, float qz, float qw)
        {
            SetPose(new XpbdPose(x, y, z, qx, qy, qz, qw));
        }

        /// <summary>
        /// Jump to <paramref name="pose"/> at once (a respawn): no sweep through the cloth, no
        /// friction carry, no guard trip (xpbd_collider_teleport). Throws on a bad pose (unchanged).
        /// </summary>
        public void Teleport(XpbdPose pose)
        {
            XpbdLibrary.Check(NativeMethods.xpbd_collider_teleport(Id, &pose.X, &pose.Qx));
            GC.KeepAlive(this);
        }

        /// <summary>The pose reached at the end of the last step (the creation pose before the first).</summary>
        public XpbdPose GetPose()
        {
            var pose = new XpbdPose();
            XpbdLibrary.Check(NativeMethods.xpbd_collider_get_pose(Id, &pose.X, &pose.Qx));
            GC.KeepAlive(this);
            return pose;
        }

        /// <summary>The descriptor it was created with, its position and rotation replaced by <see cref="GetPose"/>.</summary>
        public XpbdColliderDesc GetDesc()
        {
            XpbdColliderDesc desc;
            XpbdLibrary.Check(NativeMethods.xpbd_collider_get_desc(Id, &desc));
            GC.KeepAlive(this);
            return desc;
        }

        /// <summary>The shape.</summary>
        public XpbdColliderKind Kind { get { return (XpbdColliderKind)GetDesc().kind; } }

        protected override void ReleaseNative(ulong nativeId)
        {
            // As XpbdCloth: destroying the world already freed this collider, and asking a
            // finalized world whether it is disposed is safe (its id is cleared).
            if (world.IsDisposed) return;
            // Ignored result: INVALID_ID only if the world went away concurrently (same outcome).
            NativeMethods.xpbd_collider_destroy(new XpbdColliderId { id = nativeId });
        }

        /// <summary>A descriptor of <paramref name="kind"/> at <paramref name="pose"/> with <paramref name="contact"/>; dimensions left at that kind's defaults.</summary>
        internal static XpbdColliderDesc Desc(XpbdColliderKind kind, XpbdPose pose, XpbdColliderContact contact)
        {
            XpbdColliderDesc desc = DefaultDesc(kind);
            desc.position[0] = pose.X;
            desc.position[1] = pose.Y;
            desc.position[2] = pose.Z;
            desc.rotation[0] = pose.Qx;
            desc.rotation[1] = pose.Qy;
            desc.rotation[2] = pose.Qz;
            desc.rotation[3] = pose.Qw;
            desc.static_friction = contact.StaticFriction;
            desc.kinetic_friction = contact.KineticFriction;
            desc.layers = contact.Layers;
            return desc;
        }
    }
}
