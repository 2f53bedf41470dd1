// Safe properties for the fixed-size vector fields of the generated structs, so that user code
// (a plain Unity script) sets gravity, wind or an extra acceleration without `unsafe` (CS0214).

namespace Xpbd
{
    /// <summary>Three floats (x, y, z): a vector in metres, m/s or m/s² as the field says.</summary>
    public struct XpbdVector3
    {
        /// <summary>Components.</summary>
        public float x, y, z;

        /// <summary>The vector (x, y, z).</summary>
        public XpbdVector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }

        /// <summary>"(x, y, z)".</summary>
        public override string ToString() { return "(" + x + ", " + y + ", " + z + ")"; }
    }

    /// <summary>A rotation as a unit quaternion (x, y, z, w); (0, 0, 0, 1) = none.</summary>
    public struct XpbdQuaternion
    {
        /// <summary>Components.</summary>
        public float x, y, z, w;

        /// <summary>The quaternion (x, y, z, w).</summary>
        public XpbdQuaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
    }
}

namespace Xpbd.Native
{
    /// <summary>The fixed-size float fields of the raw structs as vectors (the properties below).</summary>
    internal static unsafe class FixedVectors
    {
        internal static Xpbd.XpbdVector3 Read3(float* p) { return new Xpbd.XpbdVector3(p[0], p[1], p[2]); }
        internal static void Write3(float* p, Xpbd.XpbdVector3 v) { p[0] = v.x; p[1] = v.y; p[2] = v.z; }
        internal static Xpbd.XpbdQuaternion Read4(float* p) { return new Xpbd.XpbdQuaternion(p[0], p[1], p[2], p[3]); }
        internal static void Write4(float* p, Xpbd.XpbdQuaternion q) { p[0] = q.x; p[1] = q.y; p[2] = q.z; p[3] = q.w; }
    }

    public unsafe partial struct XpbdWorldDesc
    {
        /// <summary>Gravity in m/s² (x, y, z) (the <c>gravity</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 Gravity
        {
            get { fixed (float* p = gravity) return FixedVectors.Read3(p); }
            set { fixed (float* p = gravity) FixedVectors.Write3(p, value); }
        }

    }

    public unsafe partial struct XpbdClothDesc
    {
        /// <summary>Extra acceleration in m/s² added to gravity for this cloth (the <c>external_acceleration</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 ExternalAcceleration
        {
            get { fixed (float* p = external_acceleration) return FixedVectors.Read3(p); }
            set { fixed (float* p = external_acceleration) FixedVectors.Write3(p, value); }
        }

        /// <summary>Wind velocity in m/s (the <c>wind_velocity</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 WindVelocity
        {
            get { fixed (float* p = wind_velocity) return FixedVectors.Read3(p); }
            set { fixed (float* p = wind_velocity) FixedVectors.Write3(p, value); }
        }

    }

    public unsafe partial struct XpbdClothParams
    {
        /// <summary>Extra acceleration in m/s² added to gravity for this cloth (the <c>external_acceleration</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 ExternalAcceleration
        {
            get { fixed (float* p = external_acceleration) return FixedVectors.Read3(p); }
            set { fixed (float* p = external_acceleration) FixedVectors.Write3(p, value); }
        }

        /// <summary>Wind velocity in m/s (the <c>wind_velocity</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 WindVelocity
        {
            get { fixed (float* p = wind_velocity) return FixedVectors.Read3(p); }
            set { fixed (float* p = wind_velocity) FixedVectors.Write3(p, value); }
        }

    }

    public unsafe partial struct XpbdColliderDesc
    {
        /// <summary>Box half extents in metres along the pose's local axes (the <c>half_extents</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 HalfExtents
        {
            get { fixed (float* p = half_extents) return FixedVectors.Read3(p); }
            set { fixed (float* p = half_extents) FixedVectors.Write3(p, value); }
        }

        /// <summary>Pose position in metres (the <c>position</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdVector3 Position
        {
            get { fixed (float* p = position) return FixedVectors.Read3(p); }
            set { fixed (float* p = position) FixedVectors.Write3(p, value); }
        }

        /// <summary>Pose rotation, a unit quaternion (the <c>rotation</c> field, without <c>unsafe</c>).</summary>
        public Xpbd.XpbdQuaternion Rotation
        {
            get { fixed (float* p = rotation) return FixedVectors.Read4(p); }
            set { fixed (float* p = rotation) FixedVectors.Write4(p, value); }
        }

    }

}
