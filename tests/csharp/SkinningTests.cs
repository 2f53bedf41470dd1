// Worn cloth through the engine-neutral layer (bindings/csharp/Engine/XpbdSkinning.cs,
// XpbdSkinDrive.cs), against an independent skinning written here as Unity defines it:
// world vertex = Σ w·bones[j].localToWorldMatrix·bindposes[j]·v, bindposes[j] =
// bone.worldToLocalMatrix·renderer.localToWorldMatrix at bind time.
using System;
using Xpbd;
using Xpbd.Native;

static unsafe partial class MonoTests
{
    // Rotation by angle (radians) about the unit axis (ax, ay, az), uniform scale s, then translation.
    static XpbdAffine Trs(float ax, float ay, float az, float angle, float s, float tx, float ty, float tz)
    {
        float c = (float)Math.Cos(angle), n = (float)Math.Sin(angle), t = 1 - c;
        return new XpbdAffine
        {
            M00 = s * (c + ax * ax * t), M01 = s * (ax * ay * t - az * n), M02 = s * (ax * az * t + ay * n), M03 = tx,
            M10 = s * (ay * ax * t + az * n), M11 = s * (c + ay * ay * t), M12 = s * (ay * az * t - ax * n), M13 = ty,
            M20 = s * (az * ax * t - ay * n), M21 = s * (az * ay * t + ax * n), M22 = s * (c + az * az * t), M23 = tz,
        };
    }

    // The test's own LBS in double precision: Σ w_k/Σw · bone_k·bindpose_k·v for one vertex.
    static void HandSkin(XpbdAffine[] bones, XpbdAffine[] bindposes, int[] boneOf, float[] weightOf, float x, float y, float z, out double ox, out double oy, out double oz)
    {
        double sum = 0;
        foreach (float w in weightOf) sum += w;
        ox = oy = oz = 0;
        for (int k = 0; k < boneOf.Length; ++k)
        {
            XpbdAffine a = bones[boneOf[k]], b = bindposes[boneOf[k]];
            double bx = b.M00 * (double)x + b.M01 * (double)y + b.M02 * (double)z + b.M03;
            double by = b.M10 * (double)x + b.M11 * (double)y + b.M12 * (double)z + b.M13;
            double bz = b.M20 * (double)x + b.M21 * (double)y + b.M22 * (double)z + b.M23;
            double w = weightOf[k] / sum;
            ox += w * (a.M00 * bx + a.M01 * by + a.M02 * bz + a.M03);
            oy += w * (a.M10 * bx + a.M11 * by + a.M12 * bz + a.M13);
            oz += w * (a.M20 * bx + a.M21 * by + a.M22 * bz + a.M23);
        }
    }

    static void SkinConversionsTrimSortAndRenormalise()
    {
        uint[] joints;
        float[] weights;
        // Vertex 0: five influences (the lightest dropped); vertex 1: two, unsorted, summing to 2.
        XpbdSkinning.JointsAndWeights(new byte[] { 5, 2 }, new[] { 0, 1, 2, 3, 4, 3, 1 }, new[] { 0.1f, 0.4f, 0.05f, 0.3f, 0.15f, 0.5f, 1.5f }, 2, 5, out joints, out weights);
        Expect(joints[0] == 1 && joints[1] == 3 && joints[2] == 4 && joints[3] == 0, "heaviest first: " + string.Join(",", joints));
        Expect(Math.Abs(weights[0] - 0.4f / 0.95f) < 1e-7 && Math.Abs(weights[3] - 0.1f / 0.95f) < 1e-7, "renormalised over the four kept");
        Expect(joints[4] == 1 && joints[5] == 3 && weights[4] == 0.75f && weights[5] == 0.25f && weights[6] == 0 && joints[6] == 0, "two influences, the rest empty");
        // Fixed four per vertex (Unity's BoneWeight), a zero weight's bone index ignored even out of range.
        XpbdSkinning.JointsAndWeights(null, new[] { 2, 99, 0, 1 }, new[] { 0.25f, 0f, 0.5f, 0.25f }, 1, 3, out joints, out weights);
        Expect(joints[0] == 0 && joints[1] == 2 && joints[2] == 1 && joints[3] == 0 && weights[3] == 0, "zero weight last, joint 0");
        Throws<ArgumentException>(() => XpbdSkinning.JointsAndWeights(null, new[] { 3, 0, 0, 0 }, new[] { 1f, 0, 0, 0 }, 1, 3, out joints, out weights));
        Throws<ArgumentException>(() => XpbdSkinning.JointsAndWeights(null, new[] { 0, 0, 0, 0 }, new[] { 0f, 0, 0, 0 }, 1, 3, out joints, out weights));
        Throws<ArgumentException>(() => XpbdSkinning.JointsAndWeights(null, new[] { 0, 0, 0, 0 }, new[] { -1f, 1, 0, 0 }, 1, 3, out joints, out weights));
        Throws<ArgumentException>(() => XpbdSkinning.JointsAndWeights(new byte[] { 3 }, new[] { 0, 0 }, new[] { 1f, 0 }, 1, 3, out joints, out weights));

        float[] painted = XpbdSkinning.FromColorChannel(new[] { 0.1f, 0.2f, 0.3f, 0.4f, 1f, 0.5f, 0f, 1f }, 1, 0.2f);
        Expect(painted.Length == 2 && painted[0] == 0.2f * 0.2f && painted[1] == 0.2f * 0.5f, "green × 0.2 m");
        Throws<ArgumentException>(() => XpbdSkinning.FromColorChannel(new float[4], 4, 1));

        var values = new[] { 1f, 2f, 3f, 4f, 5f, 6f };
        XpbdSkinning.UnifyWelded(new uint[] { 0, 1, 0 }, values, 2);
        Expect(values[4] == 1 && values[5] == 2 && values[2] == 3, "the welded copy takes its first copy's values");

        float[] column = new float[32];
        XpbdAffine m = Trs(0, 0, 1, 0.5f, 2, 1, 2, 3);
        XpbdSkinning.WriteColumnMajor(m, column, 1);
        Expect(column[16] == m.M00 && column[17] == m.M10 && column[20] == m.M01 && column[28] == 1 && column[29] == 2 && column[30] == 3 && column[31] == 1, "column-major, translation at 12..14");
        XpbdAffine r = XpbdAffine.Multiply(m, m.Inverse());
        Expect(Math.Abs(r.M00 - 1) < 1e-6 && Math.Abs(r.M01) < 1e-6 && Math.Abs(r.M03) < 1e-6 && Math.Abs(r.M23) < 1e-6, "m·m⁻¹ = identity");
    }

    static void SkinnedSimulationFollowsTheHandSkinnedPose()
    {
        // A 6×6 grid with a split seam: vertex 0 copied (welded by the library) with weights that
        // differ by rounding, as a DCC export gives them.
        float[] grid;
        uint[] indices;
        XpbdGridMesh.Create(6, 6, 1.0f, 1.0f, out grid, out indices);
        int n = grid.Length / 3 + 1;
        var local = new float[3 * n];
        Array.Copy(grid, local, grid.Length);
        Array.Copy(grid, 0, local, 3 * (n - 1), 3);
        for (int i = 0; i < indices.Length; ++i)
        {
            if (indices[i] == 0) { indices[i] = (uint)(n - 1); break; }
        }
        XpbdAffine rendererAtBind = Trs(0, 1, 0, 0.4f, 1.5f, 1, 2, 3);
        XpbdAffine[] bonesAtBind = { Trs(1, 0, 0, 0.3f, 1, 0, 2.5f, 3), Trs(0, 0, 1, -0.2f, 1, 1, 1.5f, 3), Trs(0, 1, 0, 1.0f, 1, 2, 2, 2) };
        var bindposes = new XpbdAffine[3];
        for (int j = 0; j < 3; ++j) bindposes[j] = XpbdAffine.Multiply(bonesAtBind[j].Inverse(), rendererAtBind);

        // Per vertex 4 unequal weights over the 3 bones (one bone twice is not Unity's way: use 3 + a zero).
        var boneIndices = new int[4 * n];
        var boneWeights = new float[4 * n];
        for (int v = 0; v < n; ++v)
        {
            float u = local[3 * v], h = local[3 * v + 1];
            boneIndices[4 * v] = 0; boneWeights[4 * v] = 0.2f + u;
            boneIndices[4 * v + 1] = 1; boneWeights[4 * v + 1] = 0.1f + h;
            boneIndices[4 * v + 2] = 2; boneWeights[4 * v + 2] = 0.35f;
            boneIndices[4 * v + 3] = 0; boneWeights[4 * v + 3] = 0;
        }
        boneWeights[4 * (n - 1)] += 1e-7f; // the seam copy's rounding
        uint[] joints;
        float[] weights;
        XpbdSkinning.JointsAndWeights(null, boneIndices, boneWeights, n, 3, out joints, out weights);

        XpbdWorldDesc world = XpbdWorld.DefaultDesc();
        world.thread_count = 1;
        // The simulation is placed where the renderer is now (moved since the bind).
        XpbdAffine rendererNow = Trs(0, 1, 0, 1.2f, 1.5f, -2, 0, 1);
        using (var pinned = new XpbdClothSimulation(local, indices, rendererNow, XpbdCloth.DefaultDesc(), world))
        using (var free = new XpbdClothSimulation(local, indices, rendererNow, XpbdCloth.DefaultDesc(), world))
        {
            // Bad input changes nothing: a joint index beyond the bind poses, a short array.
            var badJoints = (uint[])joints.Clone();
            badJoints[5] = 3;
            Throws<XpbdInvalidArgumentException>(() => pinned.Skin.BindSkin(bindposes, badJoints, weights));
            Throws<XpbdBufferSizeMismatchException>(() => pinned.Skin.BindSkin(bindposes, new uint[4], new float[4]));
            Expect(pinned.Skin.JointCount == 0, "no skin after refused bindings");
            Throws<ArgumentOutOfRangeException>(() => pinned.Skin.SetBone(0, XpbdAffine.Identity));
            foreach (XpbdClothSimulation sim in new[] { pinned, free })
            {
                sim.Skin.BindSkin(bindposes, joints, weights);
                Expect(sim.Skin.JointCount == 3, "three joints");
            }
            Throws<ArgumentOutOfRangeException>(() => pinned.Skin.SetBone(3, XpbdAffine.Identity));
            Throws<XpbdInvalidArgumentException>(() => pinned.Skin.SetMaxDistances(Filled(n, -1f)));
            var zero = new float[n];
            zero[n - 1] = 1e-9f; // the seam copy differs; its first copy's value wins
            pinned.Skin.SetMaxDistances(zero);
            free.Skin.SetBackstops(null, null);

            var x = new float[3 * n];
            var animated = new float[3 * n];
            double worst = 0, worstAnimated = 0, worstStart = 0;
            for (int step = 1; step <= 5; ++step)
            {
                float s = step / 5.0f;
                XpbdAffine[] bonesNow = { Trs(1, 0, 0, 0.3f + 2 * s, 1.2f, 3 * s, 2.5f, 3), Trs(0, 0, 1, -0.2f - s, 0.8f, 1, 1.5f + s, 3), Trs(0, 1, 0, 1.0f, 1.1f, 2, 2, 2 - s) };
                foreach (XpbdClothSimulation sim in new[] { pinned, free })
                {
                    for (int j = 0; j < 3; ++j) sim.Skin.SetBone(j, bonesNow[j]);
                    sim.Skin.SetReferenceFrame(new XpbdPose(3 * s, 0, 0, 0, 0, 0, 1));
                }
                if (step == 1)
                {
                    // The first bones put the free cloth on the skinned pose before it steps (a
                    // frame of 0 s sends them and takes no step).
                    Expect(free.Advance(0, 1.0f / 60.0f, 1).Steps == 0, "no step in 0 s");
                    free.Cloth.ReadPositions(x);
                    worstStart = Distance(x, bonesNow, bindposes, boneIndices, boneWeights, local, n);
                }
                pinned.Step(1.0f / 60.0f);
                free.Step(1.0f / 60.0f); // starting on the pose trips no guard (Step would throw)
                pinned.Cloth.ReadPositions(x);
                pinned.Skin.ReadAnimatedPositions(animated);
                worst = Math.Max(worst, Distance(x, bonesNow, bindposes, boneIndices, boneWeights, local, n));
                worstAnimated = Math.Max(worstAnimated, Distance(animated, bonesNow, bindposes, boneIndices, boneWeights, local, n));
            }
            Console.WriteLine("  skinned: max distance 0 lies " + worst.ToString("e2") + " m from the hand-skinned pose, free cloth starts " + worstStart.ToString("e2") + " m from it");
            Expect(worstAnimated < 2e-5, "animated pose = hand LBS: " + worstAnimated);
            Expect(worst < 2e-5, "kinematic cloth on the hand LBS: " + worst);
            Expect(worstStart < 2e-5, "the free cloth starts on the pose, not the bind pose: " + worstStart);
        }
    }

    // Largest distance of packed positions from the hand-skinned pose (the seam copy uses its first copy's weights).
    static double Distance(float[] x, XpbdAffine[] bones, XpbdAffine[] bindposes, int[] boneIndices, float[] boneWeights, float[] local, int n)
    {
        double worst = 0;
        for (int v = 0; v < n; ++v)
        {
            int src = v == n - 1 ? 0 : v;
            var boneOf = new[] { boneIndices[4 * src], boneIndices[4 * src + 1], boneIndices[4 * src + 2] };
            var weightOf = new[] { boneWeights[4 * src], boneWeights[4 * src + 1], boneWeights[4 * src + 2] };
            double ox, oy, oz;
            HandSkin(bones, bindposes, boneOf, weightOf, local[3 * v], local[3 * v + 1], local[3 * v + 2], out ox, out oy, out oz);
            double dx = x[3 * v] - ox, dy = x[3 * v + 1] - oy, dz = x[3 * v + 2] - oz;
            worst = Math.Max(worst, Math.Sqrt(dx * dx + dy * dy + dz * dz));
        }
        return worst;
    }

    static float[] Filled(int count, float value)
    {
        var values = new float[count];
        for (int i = 0; i < count; ++i) values[i] = value;
        return values;
    }
}
