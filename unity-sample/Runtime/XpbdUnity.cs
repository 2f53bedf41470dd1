// The only conversions between UnityEngine types and the engine-neutral layer (bindings/csharp).
using UnityEngine;

namespace Xpbd.Unity
{
    /// <summary>UnityEngine ↔ xpbd_cloth conversions. Everything else lives in the plain C# layer.</summary>
    public static class XpbdUnity
    {
        /// <summary>The affine part (rows 0–2) of a Unity matrix.</summary>
        public static XpbdAffine ToAffine(Matrix4x4 m)
        {
            return new XpbdAffine
            {
                M00 = m.m00, M01 = m.m01, M02 = m.m02, M03 = m.m03,
                M10 = m.m10, M11 = m.m11, M12 = m.m12, M13 = m.m13,
                M20 = m.m20, M21 = m.m21, M22 = m.m22, M23 = m.m23,
            };
        }

        /// <summary>
        /// The library shape of a Sphere, Capsule or Box collider, scaled by its Transform's
        /// lossyScale (the rules live in <see cref="XpbdEngineShape"/>); false for other colliders.
        /// Unity coordinates and quaternions pass to the library unchanged (see XpbdEngineCollider.cs).
        /// </summary>
        public static bool TryGetShape(Collider collider, out XpbdEngineShape shape)
        {
            Vector3 s = collider.transform.lossyScale;
            var sphere = collider as SphereCollider;
            var capsule = collider as CapsuleCollider;
            var box = collider as BoxCollider;
            if (sphere != null)
            {
                Vector3 c = sphere.center;
                shape = XpbdEngineShape.Sphere(c.x, c.y, c.z, sphere.radius, s.x, s.y, s.z);
            }
            else if (capsule != null)
            {
                Vector3 c = capsule.center;
                shape = XpbdEngineShape.Capsule(c.x, c.y, c.z, (XpbdAxis)capsule.direction, capsule.height, capsule.radius, s.x, s.y, s.z);
            }
            else if (box != null)
            {
                Vector3 c = box.center, size = box.size;
                shape = XpbdEngineShape.Box(c.x, c.y, c.z, size.x, size.y, size.z, s.x, s.y, s.z);
            }
            else
            {
                shape = default(XpbdEngineShape);
                return false;
            }
            return true;
        }

        /// <summary>
        /// A MeshCollider's <c>sharedMesh</c> scaled by its Transform's lossyScale, built into a
        /// closed mesh shape of <paramref name="world"/> (<see cref="XpbdEngineShape.Mesh"/>; cells of
        /// <paramref name="cellSize"/> m, 0 = automatic); false for other colliders or no mesh.
        /// </summary>
        public static bool TryGetMeshShape(XpbdWorld world, Collider collider, float cellSize, out XpbdEngineShape shape)
        {
            var meshCollider = collider as MeshCollider;
            shape = default(XpbdEngineShape);
            if (meshCollider == null || meshCollider.sharedMesh == null) return false;
            Mesh mesh = meshCollider.sharedMesh;
            int[] triangles = mesh.triangles;
            var indices = new uint[triangles.Length];
            for (int i = 0; i < triangles.Length; ++i) indices[i] = (uint)triangles[i];
            Vector3 s = collider.transform.lossyScale;
            shape = XpbdEngineShape.Mesh(world, Flatten(mesh.vertices), indices, s.x, s.y, s.z, cellSize);
            return true;
        }

        /// <summary>
        /// Friction from the collider's Physic Material (static → μ_s, dynamic → μ_k; Unity's
        /// defaults of 0.6 without one; the cloth has no material to combine with) and its
        /// GameObject's layer as the collider's layer bit.
        /// </summary>
        public static XpbdColliderContact ContactOf(Collider collider)
        {
            const float UnityDefaultFriction = 0.6f;
            PhysicMaterial m = collider.sharedMaterial;
            return new XpbdColliderContact(
                m != null ? m.staticFriction : UnityDefaultFriction,
                m != null ? m.dynamicFriction : UnityDefaultFriction,
                1u << collider.gameObject.layer);
        }

        /// <summary>Vector3[] → <c>float[3*n]</c>.</summary>
        public static float[] Flatten(Vector3[] vectors)
        {
            var flat = new float[3 * vectors.Length];
            for (int i = 0; i < vectors.Length; ++i)
            {
                flat[3 * i] = vectors[i].x;
                flat[3 * i + 1] = vectors[i].y;
                flat[3 * i + 2] = vectors[i].z;
            }
            return flat;
        }

        /// <summary>Color[] → <c>float[4*n]</c> (RGBA).</summary>
        public static float[] Flatten(Color[] colors)
        {
            var flat = new float[4 * colors.Length];
            for (int i = 0; i < colors.Length; ++i)
            {
                flat[4 * i] = colors[i].r;
                flat[4 * i + 1] = colors[i].g;
                flat[4 * i + 2] = colors[i].b;
                flat[4 * i + 3] = colors[i].a;
            }
            return flat;
        }

        /// <summary>Unity's int triangle list → <c>uint[3*t]</c>.</summary>
        public static uint[] ToIndices(int[] triangles)
        {
            var indices = new uint[triangles.Length];
            for (int i = 0; i < triangles.Length; ++i) indices[i] = (uint)triangles[i];
            return indices;
        }

        /// <summary>A Unity mesh of the grid <see cref="XpbdGridMesh.Create"/> makes (for samples and tests in the editor).</summary>
        public static Mesh GridMesh(int columns, int rows, float width, float height)
        {
            float[] positions;
            uint[] indices;
            XpbdGridMesh.Create(columns, rows, width, height, out positions, out indices);
            var vertices = new Vector3[columns * rows];
            for (int v = 0; v < vertices.Length; ++v) vertices[v] = new Vector3(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
            var triangles = new int[indices.Length];
            for (int i = 0; i < indices.Length; ++i) triangles[i] = (int)indices[i];
            var mesh = new Mesh { name = "XPBD grid " + columns + "x" + rows };
            mesh.vertices = vertices;
            mesh.triangles = triangles;
            mesh.RecalculateNormals();
            return mesh;
        }
    }
}
