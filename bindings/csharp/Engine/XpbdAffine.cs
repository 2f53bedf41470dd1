// Rigid/affine transforms between an engine object's local space and the simulation's world space.
using System;

namespace Xpbd
{
    /// <summary>
    /// An affine transform p' = A·p + t (A 3×3, t in metres), row-major: row r is
    /// (m[r,0], m[r,1], m[r,2], t[r]). Built from an engine matrix (Unity's Matrix4x4 m00..m23).
    /// Used to bring meshes into the simulation's world space and results back, in place and
    /// without allocation.
    /// </summary>
    public struct XpbdAffine
    {
        public float M00, M01, M02, M03;
        public float M10, M11, M12, M13;
        public float M20, M21, M22, M23;

        /// <summary>The identity.</summary>
        public static XpbdAffine Identity
        {
            get { return new XpbdAffine { M00 = 1, M11 = 1, M22 = 1 }; }
        }

        /// <summary>A translation by (x, y, z) metres.</summary>
        public static XpbdAffine Translation(float x, float y, float z)
        {
            XpbdAffine m = Identity;
            m.M03 = x; m.M13 = y; m.M23 = z;
            return m;
        }

        /// <summary>The composition a·b (apply <paramref name="b"/> first, then <paramref name="a"/>).</summary>
        public static XpbdAffine Multiply(XpbdAffine a, XpbdAffine b)
        {
            return new XpbdAffine
            {
                M00 = a.M00 * b.M00 + a.M01 * b.M10 + a.M02 * b.M20,
                M01 = a.M00 * b.M01 + a.M01 * b.M11 + a.M02 * b.M21,
                M02 = a.M00 * b.M02 + a.M01 * b.M12 + a.M02 * b.M22,
                M03 = a.M00 * b.M03 + a.M01 * b.M13 + a.M02 * b.M23 + a.M03,
                M10 = a.M10 * b.M00 + a.M11 * b.M10 + a.M12 * b.M20,
                M11 = a.M10 * b.M01 + a.M11 * b.M11 + a.M12 * b.M21,
                M12 = a.M10 * b.M02 + a.M11 * b.M12 + a.M12 * b.M22,
                M13 = a.M10 * b.M03 + a.M11 * b.M13 + a.M12 * b.M23 + a.M13,
                M20 = a.M20 * b.M00 + a.M21 * b.M10 + a.M22 * b.M20,
                M21 = a.M20 * b.M01 + a.M21 * b.M11 + a.M22 * b.M21,
                M22 = a.M20 * b.M02 + a.M21 * b.M12 + a.M22 * b.M22,
                M23 = a.M20 * b.M03 + a.M21 * b.M13 + a.M22 * b.M23 + a.M23,
            };
        }

        /// <summary>
        /// The inverse transform (A⁻¹ from the adjugate and determinant; t' = −A⁻¹·t). Throws
        /// <see cref="ArgumentException"/> for a singular matrix (a zero scale).
        /// </summary>
        public XpbdAffine Inverse()
        {
            // Cofactors of the 3×3 part, transposed (the adjugate).
            float c00 = M11 * M22 - M12 * M21, c01 = M02 * M21 - M01 * M22, c02 = M01 * M12 - M02 * M11;
            float c10 = M12 * M20 - M10 * M22, c11 = M00 * M22 - M02 * M20, c12 = M02 * M10 - M00 * M12;
            float c20 = M10 * M21 - M11 * M20, c21 = M01 * M20 - M00 * M21, c22 = M00 * M11 - M01 * M10;
            float det = M00 * c00 + M01 * c10 + M02 * c20;
            if (!(Math.Abs(det) > 1e-30f)) throw new ArgumentException("the transform is singular (determinant " + det + ")");
            float s = 1.0f / det;
            var r = new XpbdAffine
            {
                M00 = c00 * s, M01 = c01 * s, M02 = c02 * s,
                M10 = c10 * s, M11 = c11 * s, M12 = c12 * s,
                M20 = c20 * s, M21 = c21 * s, M22 = c22 * s,
            };
            r.M03 = -(r.M00 * M03 + r.M01 * M13 + r.M02 * M23);
            r.M13 = -(r.M10 * M03 + r.M11 * M13 + r.M12 * M23);
            r.M23 = -(r.M20 * M03 + r.M21 * M13 + r.M22 * M23);
            return r;
        }

        /// <summary>Transform the point (x, y, z) [m].</summary>
        public void TransformPoint(float x, float y, float z, out float ox, out float oy, out float oz)
        {
            ox = M00 * x + M01 * y + M02 * z + M03;
            oy = M10 * x + M11 * y + M12 * z + M13;
            oz = M20 * x + M21 * y + M22 * z + M23;
        }

        /// <summary>Transform <paramref name="count"/> points stored as 3 floats each, in place.</summary>
        public unsafe void TransformPoints(IntPtr points, int count)
        {
            float* p = (float*)points;
            for (int i = 0; i < count; ++i, p += 3)
            {
                float x = p[0], y = p[1], z = p[2];
                TransformPoint(x, y, z, out p[0], out p[1], out p[2]);
            }
        }

        /// <summary>Transform the points of <paramref name="points"/> (<c>float[3*n]</c>) in place.</summary>
        public unsafe void TransformPoints(float[] points)
        {
            if (points == null) throw new ArgumentNullException("points");
            fixed (float* p = points) TransformPoints((IntPtr)p, points.Length / 3);
        }

        /// <summary>
        /// Multiply <paramref name="count"/> normals (3 floats each) by the transpose of this
        /// matrix's 3×3 part and normalise them, in place. Normals transform with the inverse
        /// transpose, so passing the local-to-world matrix brings world-space normals into local
        /// space, correct under non-uniform scale. Zero normals stay zero.
        /// </summary>
        public unsafe void TransformNormalsByTranspose(IntPtr normals, int count)
        {
            float* n = (float*)normals;
            for (int i = 0; i < count; ++i, n += 3)
            {
                float x = n[0], y = n[1], z = n[2];
                float ox = M00 * x + M10 * y + M20 * z;
                float oy = M01 * x + M11 * y + M21 * z;
                float oz = M02 * x + M12 * y + M22 * z;
                float length = (float)Math.Sqrt(ox * ox + oy * oy + oz * oz);
                float scale = length > 0 ? 1.0f / length : 0.0f;
                n[0] = ox * scale; n[1] = oy * scale; n[2] = oz * scale;
            }
        }
    }
}
