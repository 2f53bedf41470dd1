// Engine skin data to the library's skin binding (docs/design.md, "Character cloth"): bind poses and
// bone transforms to column-major inverse bind and joint matrices, per-vertex bone weights to 4
// joints and weights, and painted vertex colours to per-vertex limits. UnityEngine-free, so the
// Mono tests cover it; the Unity component only gathers the arrays.
using System;

namespace Xpbd
{
    /// <summary>
    /// Conversions for a cloth worn by a skinned character. An engine skins a mesh-space vertex v
    /// as Σ wⱼ·boneToWorldⱼ·bindposeⱼ·v (Unity: <c>bones[j].localToWorldMatrix × mesh.bindposes[j]</c>).
    /// The cloth is created from the mesh placed in the world by <c>restToWorld</c> (x_rest =
    /// restToWorld·v), so its inverse bind matrix is bindposeⱼ·restToWorld⁻¹ and its joint matrix
    /// boneToWorldⱼ, in the world frame the cloth simulates in. Unity's left-handed coordinates
    /// pass unchanged, as everywhere else in the component (affine maps do not care about handedness).
    /// </summary>
    public static class XpbdSkinning
    {
        /// <summary>Joints and weights per vertex the library takes (the 4 heaviest).</summary>
        public const int JointsPerVertex = 4;

        /// <summary>
        /// Write <paramref name="m"/> as the column-major 4×4 matrix of joint <paramref name="joint"/>
        /// into <paramref name="destination"/> (<c>float[16*jointCount]</c>; m[12..14] the translation).
        /// </summary>
        public static void WriteColumnMajor(XpbdAffine m, float[] destination, int joint)
        {
            if (destination == null) throw new ArgumentNullException("destination");
            if (joint < 0 || 16 * (long)joint + 16 > destination.Length) throw new ArgumentOutOfRangeException("joint", joint, "no room for joint " + joint + " in " + destination.Length + " floats");
            int o = 16 * joint;
            destination[o + 0] = m.M00; destination[o + 1] = m.M10; destination[o + 2] = m.M20; destination[o + 3] = 0;
            destination[o + 4] = m.M01; destination[o + 5] = m.M11; destination[o + 6] = m.M21; destination[o + 7] = 0;
            destination[o + 8] = m.M02; destination[o + 9] = m.M12; destination[o + 10] = m.M22; destination[o + 11] = 0;
            destination[o + 12] = m.M03; destination[o + 13] = m.M13; destination[o + 14] = m.M23; destination[o + 15] = 1;
        }

        /// <summary>
        /// The inverse bind matrices (<c>float[16*bindposes.Length]</c>, column-major) of a cloth
        /// created from the mesh placed by <paramref name="restToWorld"/>: bindposeⱼ·restToWorld⁻¹.
        /// Throws <see cref="ArgumentException"/> for no bind poses or a singular restToWorld.
        /// </summary>
        public static float[] InverseBindMatrices(XpbdAffine[] bindposes, XpbdAffine restToWorld)
        {
            if (bindposes == null) throw new ArgumentNullException("bindposes");
            if (bindposes.Length == 0) throw new ArgumentException("the mesh has no bind poses", "bindposes");
            XpbdAffine toMesh = restToWorld.Inverse();
            var result = new float[16 * bindposes.Length];
            for (int j = 0; j < bindposes.Length; ++j) WriteColumnMajor(XpbdAffine.Multiply(bindposes[j], toMesh), result, j);
            return result;
        }

        /// <summary>
        /// Per vertex the (up to) 4 heaviest bone influences, heaviest first, renormalised to sum 1,
        /// as the library's <c>uint[4*n]</c> joint indices and <c>float[4*n]</c> weights (unused slots:
        /// joint 0, weight 0). Input: vertex v has <paramref name="influencesPerVertex"/>[v]
        /// consecutive entries of <paramref name="boneIndices"/> / <paramref name="boneWeights"/>
        /// (Unity's <c>GetBonesPerVertex</c> / <c>GetAllBoneWeights</c>), or 4 each when it is null
        /// (Unity's <c>BoneWeight</c>). Ties keep the input order. Throws <see cref="ArgumentException"/>
        /// naming the vertex for a bone index outside 0..<paramref name="boneCount"/>−1 with a nonzero
        /// weight, a negative or non-finite weight, a vertex whose weights are all 0, or arrays that
        /// do not add up.
        /// </summary>
        public static void JointsAndWeights(byte[] influencesPerVertex, int[] boneIndices, float[] boneWeights, int vertexCount, int boneCount,
            out uint[] joints, out float[] weights)
        {
            if (boneIndices == null) throw new ArgumentNullException("boneIndices");
            if (boneWeights == null) throw new ArgumentNullException("boneWeights");
            if (boneIndices.Length != boneWeights.Length) throw new ArgumentException(boneIndices.Length + " bone indices but " + boneWeights.Length + " weights");
            if (influencesPerVertex != null && influencesPerVertex.Length != vertexCount) throw new ArgumentException(influencesPerVertex.Length + " influence counts for " + vertexCount + " vertices");
            long total = 0;
            for (int v = 0; v < vertexCount; ++v) total += influencesPerVertex != null ? influencesPerVertex[v] : JointsPerVertex;
            if (total != boneIndices.Length) throw new ArgumentException(boneIndices.Length + " bone influences, but the per-vertex counts add up to " + total);

            joints = new uint[JointsPerVertex * vertexCount];
            weights = new float[JointsPerVertex * vertexCount];
            var order = new int[256];
            int start = 0;
            for (int v = 0; v < vertexCount; ++v)
            {
                int count = influencesPerVertex != null ? influencesPerVertex[v] : JointsPerVertex;
                for (int k = 0; k < count; ++k)
                {
                    float w = boneWeights[start + k];
                    int bone = boneIndices[start + k];
                    if (!(w >= 0 && w <= float.MaxValue)) throw new ArgumentException("vertex " + v + " has bone weight " + w + " (need finite weights >= 0)");
                    if (w != 0 && (bone < 0 || bone >= boneCount)) throw new ArgumentException("vertex " + v + " uses bone " + bone + ", but the skin has " + boneCount + " bones");
                }
                // Insertion sort by weight, heaviest first and stable: at most a few influences.
                for (int k = 0; k < count; ++k)
                {
                    int i = k;
                    while (i > 0 && boneWeights[start + order[i - 1]] < boneWeights[start + k]) { order[i] = order[i - 1]; --i; }
                    order[i] = k;
                }
                int kept = Math.Min(count, JointsPerVertex);
                float sum = 0;
                for (int k = 0; k < kept; ++k) sum += boneWeights[start + order[k]];
                if (!(sum > 0)) throw new ArgumentException("vertex " + v + " has no bone weight (every weight is 0)");
                for (int k = 0; k < kept; ++k)
                {
                    float w = boneWeights[start + order[k]];
                    joints[JointsPerVertex * v + k] = w != 0 ? (uint)boneIndices[start + order[k]] : 0u;
                    weights[JointsPerVertex * v + k] = w / sum;
                }
                start += count;
            }
        }

        /// <summary>
        /// Per vertex <paramref name="scale"/> × the value of colour channel <paramref name="channel"/>
        /// (0 = r … 3 = a) of <paramref name="rgba"/> (<c>float[4*n]</c>), e.g. a max distance in
        /// metres painted as 0..1. Throws <see cref="ArgumentException"/> for a channel outside 0..3
        /// or a length not a multiple of 4.
        /// </summary>
        public static float[] FromColorChannel(float[] rgba, int channel, float scale)
        {
            if (rgba == null) throw new ArgumentNullException("rgba");
            if (channel < 0 || channel > 3) throw new ArgumentException("colour channel " + channel + " (need 0..3)", "channel");
            if (rgba.Length % 4 != 0) throw new ArgumentException(rgba.Length + " colour floats (need 4 per vertex)", "rgba");
            var values = new float[rgba.Length / 4];
            for (int v = 0; v < values.Length; ++v) values[v] = scale * rgba[4 * v + channel];
            return values;
        }

        /// <summary>
        /// Give every welded copy of a vertex the values of its first copy in render order, in place:
        /// <paramref name="perVertex"/> consecutive entries of <paramref name="values"/> per vertex,
        /// <paramref name="particleOfVertex"/> the cloth's render vertex → particle map
        /// (<see cref="XpbdCloth.ReadParticleMap"/>). The library requires welded copies to agree;
        /// split UV seams of a painted or skinned mesh often differ by rounding.
        /// </summary>
        public static void UnifyWelded<T>(uint[] particleOfVertex, T[] values, int perVertex)
        {
            if (particleOfVertex == null) throw new ArgumentNullException("particleOfVertex");
            if (values == null) throw new ArgumentNullException("values");
            if (perVertex < 1 || values.Length != perVertex * (long)particleOfVertex.Length) throw new ArgumentException(values.Length + " values for " + particleOfVertex.Length + " vertices × " + perVertex);
            var first = new int[particleOfVertex.Length];
            for (int i = 0; i < first.Length; ++i) first[i] = -1;
            for (int v = 0; v < particleOfVertex.Length; ++v)
            {
                uint p = particleOfVertex[v];
                if (p >= first.Length) throw new ArgumentException("particle " + p + " of vertex " + v + " is out of range");
                if (first[p] < 0) { first[p] = v; continue; }
                Array.Copy(values, perVertex * first[p], values, perVertex * v, perVertex);
            }
        }
    }
}
