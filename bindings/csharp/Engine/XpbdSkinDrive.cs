// The worn-cloth half of a cloth component: skin binding, bone transforms gathered per fixed
// update and sent once before the next step, per-vertex limits against the skinned pose.
// UnityEngine-free, so the Mono tests cover it.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// Drives a <see cref="XpbdClothSimulation"/>'s cloth from a skinned character (docs/unity.md,
    /// "Worn cloth"). Once: <see cref="BindSkin"/>, then any of <see cref="SetMaxDistances"/>,
    /// <see cref="SetBackstops"/>, <see cref="SetAnimDrive"/>. Per fixed update:
    /// <see cref="SetBone"/> for every joint (and <see cref="SetReferenceFrame"/>); the simulation's
    /// Step/Advance sends them, reached by the end of the next step. The first send also puts the
    /// cloth on the skinned pose, so a character not in its bind pose does not start with a jump.
    /// Per-vertex arrays are in render order; welded copies take their first copy's values.
    /// Nothing allocates after <see cref="BindSkin"/>.
    /// </summary>
    public sealed class XpbdSkinDrive
    {
        readonly XpbdCloth cloth;
        readonly XpbdAffine restToWorld;
        uint[] particleOfVertex;
        float[] jointMatrices = new float[0];
        float[] startPose;
        bool jointsPending, posed, framePending;
        XpbdPose frame;

        internal XpbdSkinDrive(XpbdCloth cloth, XpbdAffine restToWorld)
        {
            this.cloth = cloth;
            this.restToWorld = restToWorld;
        }

        /// <summary>Joints of the bound skin (0 before <see cref="BindSkin"/>).</summary>
        public int JointCount { get { return jointMatrices.Length / 16; } }

        uint[] ParticleMap()
        {
            if (particleOfVertex == null)
            {
                particleOfVertex = new uint[cloth.VertexCount];
                cloth.ReadParticleMap(particleOfVertex);
            }
            return particleOfVertex;
        }

        /// <summary>
        /// Bind the cloth to a skeleton: <paramref name="bindposes"/> the engine's per-joint bind
        /// poses (mesh space → joint space at bind time; Unity's <c>mesh.bindposes</c>) and per vertex
        /// the joints and weights of <see cref="XpbdSkinning.JointsAndWeights"/>
        /// (<c>uint[4*n]</c>, <c>float[4*n]</c>). Throws as <see cref="XpbdCloth.SetSkin"/> (a joint
        /// index out of range, weights all 0, wrong lengths); nothing changes then.
        /// </summary>
        public void BindSkin(XpbdAffine[] bindposes, uint[] joints, float[] weights)
        {
            if (joints == null) throw new ArgumentNullException("joints");
            if (weights == null) throw new ArgumentNullException("weights");
            float[] inverseBind = XpbdSkinning.InverseBindMatrices(bindposes, restToWorld);
            uint[] j = (uint[])joints.Clone();
            float[] w = (float[])weights.Clone();
            if (j.Length == XpbdSkinning.JointsPerVertex * cloth.VertexCount && w.Length == j.Length)
            {
                XpbdSkinning.UnifyWelded(ParticleMap(), j, XpbdSkinning.JointsPerVertex);
                XpbdSkinning.UnifyWelded(ParticleMap(), w, XpbdSkinning.JointsPerVertex);
            }
            cloth.SetSkin(inverseBind, j, w);
            jointMatrices = new float[inverseBind.Length];
            for (int k = 0; k < bindposes.Length; ++k) WriteIdentity(k);
            startPose = new float[3 * cloth.VertexCount];
            jointsPending = posed = false;
        }

        void WriteIdentity(int joint)
        {
            XpbdSkinning.WriteColumnMajor(XpbdAffine.Identity, jointMatrices, joint);
        }

        /// <summary>
        /// Joint <paramref name="joint"/>'s world transform (Unity: <c>bones[j].localToWorldMatrix</c>)
        /// for the end of the next step. Stored only; sent by the next Step/Advance.
        /// </summary>
        public void SetBone(int joint, XpbdAffine boneToWorld)
        {
            XpbdSkinning.WriteColumnMajor(boneToWorld, jointMatrices, joint);
            jointsPending = true;
        }

        /// <summary>
        /// The character's root (position in metres, unit rotation local → world) for local-space
        /// inertia (the cloth's linear_inertia / angular_inertia), for the end of the next step.
        /// </summary>
        public void SetReferenceFrame(XpbdPose pose)
        {
            frame = pose;
            framePending = true;
        }

        /// <summary>
        /// Per-vertex max distance in metres (<c>float[n]</c>, ≥ 0; 0 = on the pose), or null to
        /// clear. Throws as <see cref="XpbdCloth.SetMaxDistances"/>; nothing changes then.
        /// </summary>
        public void SetMaxDistances(float[] distances)
        {
            cloth.SetMaxDistances(Welded(distances));
        }

        /// <summary>
        /// Per-vertex backstop distance and radius in metres (<c>float[n]</c> each; the particle stays
        /// outside the sphere of that radius centred distance + radius behind the animated surface),
        /// or both null to clear. Throws as <see cref="XpbdCloth.SetBackstops"/>.
        /// </summary>
        public void SetBackstops(float[] distances, float[] radii)
        {
            cloth.SetBackstops(Welded(distances), Welded(radii));
        }

        /// <summary>Per-vertex anim drive compliance α in m/N (<c>float[n]</c>), or null to clear.</summary>
        public void SetAnimDrive(float[] compliances)
        {
            cloth.SetAnimDrive(Welded(compliances));
        }

        float[] Welded(float[] values)
        {
            if (values == null || values.Length != cloth.VertexCount) return values; // the cloth names a wrong length
            float[] copy = (float[])values.Clone();
            XpbdSkinning.UnifyWelded(ParticleMap(), copy, 1);
            return copy;
        }

        /// <summary>
        /// Copy the animated (skinned) pose the next step reaches into <paramref name="destination"/>
        /// (<c>float[3*n]</c>, metres), e.g. to draw max-distance spheres.
        /// </summary>
        public void ReadAnimatedPositions(float[] destination)
        {
            cloth.ReadAnimatedPositions(destination);
        }

        // Before a step: the gathered joints and frame. The first joints also place the cloth on
        // its skinned pose (a character is rarely in its bind pose when the cloth is created).
        internal void Send()
        {
            if (jointsPending)
            {
                cloth.SetJointMatrices(jointMatrices);
                jointsPending = false;
                if (!posed)
                {
                    cloth.ReadAnimatedPositions(startPose);
                    cloth.SetPositions(null, startPose);
                    posed = true;
                }
            }
            if (framePending)
            {
                cloth.SetReferenceFrame(frame);
                framePending = false;
            }
        }
    }
}
