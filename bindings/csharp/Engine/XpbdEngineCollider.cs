// Engine colliders as library colliders: the conventions of Unity's SphereCollider,
// CapsuleCollider and BoxCollider (centre offset, capsule direction and total height, box size,
// lossy scale) turned into shapes and poses. UnityEngine-free, so the Mono tests cover it; the
// Unity component only reads the collider's fields and its Transform.
//
// Axes and handedness: positions and quaternions pass through unchanged, as the cloth's own
// positions do (XpbdClothComponent hands the library Unity world coordinates). Unity is
// left-handed, Y up; the library's formulas (distances, q·v·q* rotation, Hamilton products) are
// the same in either handedness, so a Unity quaternion rotates a Unity vector in the library
// exactly as it does in Unity. Nothing is mirrored or swapped, and gravity (0, -9.81, 0) is Unity's.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>A local axis, numbered as Unity's <c>CapsuleCollider.direction</c> (0 = X, 1 = Y, 2 = Z).</summary>
    public enum XpbdAxis { X = 0, Y = 1, Z = 2 }

    /// <summary>
    /// The shape of an engine collider, sized in world metres, plus where it sits in its object:
    /// the centre in the object's local (unscaled) space and, for capsules, the local axis it
    /// lies along. Built once from the engine's collider fields and the object's lossy scale; the
    /// pose follows the object every fixed step (<see cref="WorldPose"/>). Scale changes after
    /// creation are not followed (create the collider again).
    /// </summary>
    public struct XpbdEngineShape
    {
        /// <summary>Library shape: sphere, capsule, box or mesh.</summary>
        public XpbdColliderKind Kind;
        /// <summary>Mesh: the shape it instances, built with the object's scale baked in (<see cref="Mesh"/>).</summary>
        public XpbdMeshShape MeshShape;
        /// <summary>Sphere/capsule radius in metres (box: edge rounding, 0).</summary>
        public float Radius;
        /// <summary>Capsule: half the length of the axis segment between the cap centres, metres.</summary>
        public float HalfHeight;
        /// <summary>Box: half extents along the object's local axes, metres.</summary>
        public float HalfX, HalfY, HalfZ;
        /// <summary>Centre in the object's local space (as the engine stores it, before scale).</summary>
        public float CenterX, CenterY, CenterZ;
        /// <summary>Capsule: the object's local axis its segment lies along (the library's capsules lie along Y).</summary>
        public XpbdAxis Axis;

        /// <summary>
        /// Unity's SphereCollider: <paramref name="radius"/> scaled by the largest |lossy scale|
        /// component (as Unity's physics does; a sphere stays a sphere).
        /// </summary>
        public static XpbdEngineShape Sphere(float centerX, float centerY, float centerZ, float radius, float scaleX, float scaleY, float scaleZ)
        {
            float scale = Math.Max(Math.Abs(scaleX), Math.Max(Math.Abs(scaleY), Math.Abs(scaleZ)));
            return new XpbdEngineShape
            {
                Kind = XpbdColliderKind.Sphere,
                Radius = radius * scale,
                CenterX = centerX, CenterY = centerY, CenterZ = centerZ,
                Axis = XpbdAxis.Y,
            };
        }

        /// <summary>
        /// Unity's CapsuleCollider: <paramref name="height"/> is the total length including both
        /// caps along <paramref name="direction"/>, scaled by |scale| on that axis; the radius is
        /// scaled by the larger |scale| of the two other axes. A height below two radii is a
        /// sphere (half height 0), as in Unity.
        /// </summary>
        public static XpbdEngineShape Capsule(float centerX, float centerY, float centerZ, XpbdAxis direction, float height, float radius,
            float scaleX, float scaleY, float scaleZ)
        {
            float ax = Math.Abs(scaleX), ay = Math.Abs(scaleY), az = Math.Abs(scaleZ);
            float along, across;
            switch (direction)
            {
                case XpbdAxis.X: along = ax; across = Math.Max(ay, az); break;
                case XpbdAxis.Y: along = ay; across = Math.Max(ax, az); break;
                case XpbdAxis.Z: along = az; across = Math.Max(ax, ay); break;
                default: throw new ArgumentOutOfRangeException("direction", direction, "0 (X), 1 (Y) or 2 (Z)");
            }
            float r = radius * across;
            return new XpbdEngineShape
            {
                Kind = XpbdColliderKind.Capsule,
                Radius = r,
                HalfHeight = Math.Max(0.0f, 0.5f * height * along - r),
                CenterX = centerX, CenterY = centerY, CenterZ = centerZ,
                Axis = direction,
            };
        }

        /// <summary>Unity's BoxCollider: full <c>size</c> per local axis, each scaled by |scale| on that axis; sharp edges.</summary>
        public static XpbdEngineShape Box(float centerX, float centerY, float centerZ, float sizeX, float sizeY, float sizeZ,
            float scaleX, float scaleY, float scaleZ)
        {
            return new XpbdEngineShape
            {
                Kind = XpbdColliderKind.Box,
                HalfX = 0.5f * sizeX * Math.Abs(scaleX),
                HalfY = 0.5f * sizeY * Math.Abs(scaleY),
                HalfZ = 0.5f * sizeZ * Math.Abs(scaleZ),
                CenterX = centerX, CenterY = centerY, CenterZ = centerZ,
                Axis = XpbdAxis.Y,
            };
        }

        /// <summary>
        /// Unity's MeshCollider: its <c>sharedMesh</c> (<paramref name="vertices"/> x, y, z per vertex
        /// in the object's local space, <paramref name="indices"/> three per triangle) with the lossy
        /// scale baked into the vertices, built into a closed mesh shape of <paramref name="world"/>
        /// with cells of <paramref name="cellSize"/> metres (0 = automatic). The pose is the object's
        /// (no centre offset). The shape builds on a thread of its own
        /// (<see cref="XpbdWorld.CreateMeshShapeAsync"/>): the collider touches nothing until the step
        /// after the build ends. Throws <see cref="XpbdInvalidMeshException"/> for a bad mesh.
        /// </summary>
        public static XpbdEngineShape Mesh(XpbdWorld world, float[] vertices, uint[] indices, float scaleX, float scaleY, float scaleZ, float cellSize)
        {
            if (world == null) throw new ArgumentNullException("world");
            if (vertices == null) throw new ArgumentNullException("vertices");
            var scaled = new float[vertices.Length];
            for (int i = 0; i + 2 < vertices.Length; i += 3)
            {
                scaled[i] = vertices[i] * scaleX;
                scaled[i + 1] = vertices[i + 1] * scaleY;
                scaled[i + 2] = vertices[i + 2] * scaleZ;
            }
            return new XpbdEngineShape
            {
                Kind = XpbdColliderKind.Mesh,
                MeshShape = world.CreateMeshShapeAsync(scaled, indices, cellSize, true),
                Axis = XpbdAxis.Y,
            };
        }

        /// <summary>
        /// The library pose of this shape on an object whose transform is
        /// <paramref name="objectToWorld"/> (Unity: <c>localToWorldMatrix</c>) and whose world
        /// rotation is the unit quaternion (qx, qy, qz, qw) (Unity: <c>transform.rotation</c>):
        /// position = objectToWorld · centre (so the centre offset scales with the object, as
        /// Unity's <c>TransformPoint</c>); rotation = object rotation · axis rotation, where the axis
        /// rotation turns the library's capsule axis (local Y) onto the engine's direction.
        /// </summary>
        public XpbdPose WorldPose(XpbdAffine objectToWorld, float qx, float qy, float qz, float qw)
        {
            var pose = new XpbdPose();
            objectToWorld.TransformPoint(CenterX, CenterY, CenterZ, out pose.X, out pose.Y, out pose.Z);
            float ax, ay, az, aw;
            AxisRotation(Axis, out ax, out ay, out az, out aw);
            // Hamilton product object · axis, then renormalised (the library accepts 1 ± 1e-3).
            float x = qw * ax + qx * aw + qy * az - qz * ay;
            float y = qw * ay - qx * az + qy * aw + qz * ax;
            float z = qw * az + qx * ay - qy * ax + qz * aw;
            float w = qw * aw - qx * ax - qy * ay - qz * az;
            float length = (float)Math.Sqrt(x * x + y * y + z * z + w * w);
            if (!(length > 0)) throw new ArgumentException("the object's rotation is not a quaternion (length " + length + ")");
            pose.Qx = x / length; pose.Qy = y / length; pose.Qz = z / length; pose.Qw = w / length;
            return pose;
        }

        /// <summary>
        /// The unit quaternion turning local +Y onto <paramref name="axis"/>: a quarter turn about
        /// −Z for X, about +X for Z, none for Y.
        /// </summary>
        public static void AxisRotation(XpbdAxis axis, out float x, out float y, out float z, out float w)
        {
            float half = (float)Math.Sqrt(0.5);
            x = 0; y = 0; z = 0; w = 1;
            if (axis == XpbdAxis.X) { z = -half; w = half; }
            else if (axis == XpbdAxis.Z) { x = half; w = half; }
        }

        /// <summary>The library descriptor of this shape at <paramref name="pose"/> with <paramref name="contact"/>.</summary>
        public unsafe XpbdColliderDesc ToDesc(XpbdPose pose, XpbdColliderContact contact)
        {
            XpbdColliderDesc desc = XpbdCollider.Desc(Kind, pose, contact);
            if (Kind == XpbdColliderKind.Mesh)
            {
                desc.mesh_shape = MeshShape.Id;
            }
            else if (Kind == XpbdColliderKind.Box)
            {
                desc.half_extents[0] = HalfX;
                desc.half_extents[1] = HalfY;
                desc.half_extents[2] = HalfZ;
                desc.radius = 0.0f;
            }
            else
            {
                desc.radius = Radius;
                desc.half_height = HalfHeight;
            }
            return desc;
        }
    }

    /// <summary>
    /// A native collider that follows an engine collider: created from its shape and its object's
    /// transform, then moved with <see cref="Follow"/> once per fixed update before the step (the
    /// pose is reached by the end of that step, so the cloth sees the collider move smoothly).
    /// </summary>
    public sealed class XpbdTrackedCollider : IDisposable
    {
        /// <param name="world">The world the cloth lives in.</param>
        /// <param name="shape">The engine collider's shape (<see cref="XpbdEngineShape"/>).</param>
        /// <param name="objectToWorld">Its object's transform now.</param>
        /// <param name="qx">Its object's world rotation now (x, y, z, w: <paramref name="qx"/>..<paramref name="qw"/>).</param>
        /// <param name="contact">Friction and layers.</param>
        public XpbdTrackedCollider(XpbdWorld world, XpbdEngineShape shape, XpbdAffine objectToWorld, float qx, float qy, float qz, float qw,
            XpbdColliderContact contact)
        {
            if (world == null) throw new ArgumentNullException("world");
            Shape = shape;
            Collider = world.CreateCollider(shape.ToDesc(shape.WorldPose(objectToWorld, qx, qy, qz, qw), contact));
        }

        /// <summary>The shape it was created with.</summary>
        public XpbdEngineShape Shape { get; private set; }

        /// <summary>The native collider.</summary>
        public XpbdCollider Collider { get; private set; }

        /// <summary>Set the pose for the next step from the object's transform and world rotation now. Allocates nothing.</summary>
        public void Follow(XpbdAffine objectToWorld, float qx, float qy, float qz, float qw)
        {
            Collider.SetPose(Shape.WorldPose(objectToWorld, qx, qy, qz, qw));
        }

        /// <summary>Destroy the native collider (and a mesh shape made for it). Harmless twice or after its world was disposed.</summary>
        public void Dispose()
        {
            Collider.Dispose();
            if (Shape.MeshShape != null) Shape.MeshShape.Dispose();
        }
    }
}
