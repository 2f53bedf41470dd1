// Worn cloth: the component on a SkinnedMeshRenderer. Gathers bones, bind poses, bone weights and
// painted limits and hands them to XpbdSkinDrive (plain C#, Mono-tested); draws max-distance gizmos.
using System;
using UnityEngine;
using Xpbd.Native;

namespace Xpbd.Unity
{
    /// <summary>Where a per-vertex limit (max distance, backstop) comes from.</summary>
    public enum XpbdLimitSource
    {
        /// <summary>No limit.</summary>
        None = 0,
        /// <summary>A vertex colour channel (0..1) times a scale in metres.</summary>
        VertexColor = 1,
        /// <summary>An array with one value in metres per mesh vertex.</summary>
        Array = 2,
    }

    public sealed partial class XpbdClothComponent
    {
        [Header("Worn cloth (SkinnedMeshRenderer)")]
        [Tooltip("Max distance: how far in metres each vertex may leave its skinned position (0 = moves with the skin). Unity Cloth's maxDistance.")]
        public XpbdLimitSource maxDistanceSource = XpbdLimitSource.None;
        [Tooltip("Vertex colour channel holding the max distance, 0..1 times the scale.")]
        public XpbdColorChannel maxDistanceChannel = XpbdColorChannel.Green;
        [Tooltip("Max distance in metres of a channel value of 1.")]
        [Min(0f)] public float maxDistanceScale = 0.1f;
        [Tooltip("Max distance in metres per mesh vertex (Array source).")]
        public float[] maxDistances = new float[0];
        [Tooltip("Backstop: each vertex stays outside a sphere of the radius below whose surface lies this distance behind its skinned position, so cloth never passes behind the body.")]
        public XpbdLimitSource backstopSource = XpbdLimitSource.None;
        [Tooltip("Vertex colour channel holding the backstop distance, 0..1 times the scale.")]
        public XpbdColorChannel backstopChannel = XpbdColorChannel.Blue;
        [Tooltip("Backstop distance in metres of a channel value of 1.")]
        [Min(0f)] public float backstopScale = 0.02f;
        [Tooltip("Backstop distance in metres per mesh vertex (Array source).")]
        public float[] backstopDistances = new float[0];
        [Tooltip("Backstop sphere radius in metres (every vertex): large against a flat body, about the limb's radius on a limb.")]
        [Min(0f)] public float backstopRadius = 0.5f;
        [Tooltip("Pull every vertex towards its skinned position with this compliance in m/N (an XPBD soft attachment); off when unticked.")]
        public bool animDrive;
        [Min(0f)] public float animDriveCompliance = 1e-3f;
        [Tooltip("Fraction of the root bone's translation the cloth feels, 0–1: 1 = plain physics, 0 = the character's running does not stream the cloth out.")]
        [Range(0f, 1f)] public float linearInertia = 1f;
        [Tooltip("Fraction of the root bone's rotation the cloth feels, 0–1: 0 = a snap turn carries the cloth round with the character.")]
        [Range(0f, 1f)] public float angularInertia = 1f;

        SkinnedMeshRenderer skinnedRenderer;
        GameObject renderChild;
        Transform[] bones = new Transform[0];
        Transform referenceBone;
        float[] gizmoCenters = new float[0], gizmoRadii = new float[0];
        Mesh gizmoMesh;

        /// <summary>True while the cloth is driven by a SkinnedMeshRenderer's bones.</summary>
        public bool IsWorn { get { return skinnedRenderer != null && Running; } }

        // The mesh to simulate, and the MeshFilter that shows the result. On a SkinnedMeshRenderer
        // the result is drawn by a child MeshRenderer with the same materials and the skinned
        // renderer is switched off (it would skin the simulated vertices again).
        Mesh SourceMesh(out MeshFilter target)
        {
            skinnedRenderer = GetComponent<SkinnedMeshRenderer>();
            if (skinnedRenderer == null)
            {
                target = GetComponent<MeshFilter>();
                if (target == null) throw new InvalidOperationException(name + ": needs a MeshFilter or a SkinnedMeshRenderer");
                return target.sharedMesh;
            }
            Mesh mesh = skinnedRenderer.sharedMesh;
            renderChild = new GameObject(name + " (XPBD cloth)");
            renderChild.transform.SetParent(transform, false);
            target = renderChild.AddComponent<MeshFilter>();
            renderChild.AddComponent<MeshRenderer>().sharedMaterials = skinnedRenderer.sharedMaterials;
            skinnedRenderer.enabled = false;
            return mesh;
        }

        // After the simulation exists: skin binding, limits and the first bones (so the first step
        // already follows the pose). Nothing on a MeshFilter.
        void BindWornCloth(Mesh mesh, int vertexCount)
        {
            if (skinnedRenderer == null) return;
            bones = skinnedRenderer.bones;
            Matrix4x4[] bindposes = mesh.bindposes;
            BoneWeight[] influences = mesh.boneWeights;
            if (bones.Length == 0 || bindposes.Length != bones.Length) throw new InvalidOperationException(name + ": the SkinnedMeshRenderer has " + bones.Length + " bones and its mesh " + bindposes.Length + " bind poses");
            if (influences.Length != vertexCount) throw new InvalidOperationException(name + ": the mesh has no bone weights");
            for (int j = 0; j < bones.Length; ++j)
            {
                if (bones[j] == null) throw new InvalidOperationException(name + ": bone " + j + " of the SkinnedMeshRenderer is missing");
            }
            var binds = new XpbdAffine[bindposes.Length];
            for (int j = 0; j < binds.Length; ++j) binds[j] = XpbdUnity.ToAffine(bindposes[j]);
            var boneIndices = new int[4 * vertexCount];
            var boneWeights = new float[4 * vertexCount];
            for (int v = 0; v < vertexCount; ++v)
            {
                BoneWeight b = influences[v];
                boneIndices[4 * v] = b.boneIndex0; boneWeights[4 * v] = b.weight0;
                boneIndices[4 * v + 1] = b.boneIndex1; boneWeights[4 * v + 1] = b.weight1;
                boneIndices[4 * v + 2] = b.boneIndex2; boneWeights[4 * v + 2] = b.weight2;
                boneIndices[4 * v + 3] = b.boneIndex3; boneWeights[4 * v + 3] = b.weight3;
            }
            uint[] joints;
            float[] weights;
            XpbdSkinning.JointsAndWeights(null, boneIndices, boneWeights, vertexCount, bones.Length, out joints, out weights);
            XpbdSkinDrive skin = simulation.Skin;
            skin.BindSkin(binds, joints, weights);

            float[] colors = maxDistanceSource == XpbdLimitSource.VertexColor || backstopSource == XpbdLimitSource.VertexColor ? MeshColors(mesh, vertexCount) : null;
            gizmoRadii = Limit(maxDistanceSource, colors, maxDistanceChannel, maxDistanceScale, maxDistances, vertexCount, "max distances");
            skin.SetMaxDistances(gizmoRadii);
            float[] backstop = Limit(backstopSource, colors, backstopChannel, backstopScale, backstopDistances, vertexCount, "backstop distances");
            float[] radii = null;
            if (backstop != null)
            {
                radii = new float[vertexCount];
                for (int v = 0; v < vertexCount; ++v) radii[v] = backstopRadius;
            }
            skin.SetBackstops(backstop, radii);
            if (animDrive)
            {
                var compliances = new float[vertexCount];
                for (int v = 0; v < vertexCount; ++v) compliances[v] = animDriveCompliance;
                skin.SetAnimDrive(compliances);
            }
            gizmoCenters = new float[3 * vertexCount];
            referenceBone = skinnedRenderer.rootBone != null ? skinnedRenderer.rootBone : transform;
            GatherBones();
        }

        float[] MeshColors(Mesh mesh, int vertexCount)
        {
            Color[] colors = mesh.colors;
            if (colors.Length != vertexCount) throw new InvalidOperationException(name + ": a limit is painted in vertex colours, but the mesh has none");
            return XpbdUnity.Flatten(colors);
        }

        float[] Limit(XpbdLimitSource source, float[] colors, XpbdColorChannel channel, float scale, float[] values, int vertexCount, string what)
        {
            switch (source)
            {
                case XpbdLimitSource.VertexColor:
                    return XpbdSkinning.FromColorChannel(colors, (int)channel, scale);
                case XpbdLimitSource.Array:
                    if (values == null || values.Length != vertexCount) throw new InvalidOperationException(name + ": " + (values == null ? 0 : values.Length) + " " + what + " for " + vertexCount + " vertices");
                    return values;
                default:
                    return null;
            }
        }

        // Every FixedUpdate: the bones' world matrices and the root's pose, sent before the next step.
        void FixedUpdate()
        {
            if (skinnedRenderer != null && Running) GatherBones();
        }

        void GatherBones()
        {
            XpbdSkinDrive skin = simulation.Skin;
            for (int j = 0; j < bones.Length; ++j)
            {
                if (bones[j] != null) skin.SetBone(j, XpbdUnity.ToAffine(bones[j].localToWorldMatrix));
            }
            if (referenceBone != null)
            {
                Vector3 p = referenceBone.position;
                Quaternion q = referenceBone.rotation;
                skin.SetReferenceFrame(new XpbdPose(p.x, p.y, p.z, q.x, q.y, q.z, q.w));
            }
        }

        void ReleaseWorn()
        {
            if (renderChild != null) Destroy(renderChild);
            renderChild = null;
            if (skinnedRenderer != null) skinnedRenderer.enabled = true;
            skinnedRenderer = null;
            bones = new Transform[0];
            referenceBone = null;
        }

        // Max-distance spheres around the skinned pose (play mode) or the renderer's current
        // skinned mesh (edit mode); yellow wire spheres, kinematic vertices as small red ones.
        void OnDrawGizmosSelected()
        {
            DrawDebugLines();
            float[] radii;
            if (IsWorn)
            {
                if (gizmoRadii == null) return;
                simulation.Skin.ReadAnimatedPositions(gizmoCenters);
                radii = gizmoRadii;
            }
            else
            {
                SkinnedMeshRenderer smr = GetComponent<SkinnedMeshRenderer>();
                if (smr == null || smr.sharedMesh == null || maxDistanceSource == XpbdLimitSource.None) return;
                if (gizmoMesh == null) gizmoMesh = new Mesh();
                smr.BakeMesh(gizmoMesh, true);
                float[] local = XpbdUnity.Flatten(gizmoMesh.vertices);
                int n = local.Length / 3;
                try
                {
                    float[] colors = maxDistanceSource == XpbdLimitSource.VertexColor ? MeshColors(smr.sharedMesh, n) : null;
                    radii = Limit(maxDistanceSource, colors, maxDistanceChannel, maxDistanceScale, maxDistances, n, "max distances");
                }
                catch (InvalidOperationException)
                {
                    return; // the Inspector's values do not fit the mesh yet
                }
                XpbdUnity.ToAffine(transform.localToWorldMatrix).TransformPoints(local);
                gizmoCenters = local;
            }
            for (int v = 0; v < radii.Length && 3 * v + 2 < gizmoCenters.Length; ++v)
            {
                var c = new Vector3(gizmoCenters[3 * v], gizmoCenters[3 * v + 1], gizmoCenters[3 * v + 2]);
                Gizmos.color = radii[v] > 0 ? new Color(1f, 0.85f, 0.1f, 0.5f) : new Color(1f, 0.2f, 0.1f, 0.8f);
                Gizmos.DrawWireSphere(c, radii[v] > 0 ? radii[v] : 0.005f);
            }
        }
    }
}
