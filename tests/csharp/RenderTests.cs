// Issue 46 under Mono: render proxies, debug lines and level of detail through the C# layer
// (part of MonoTests, run by tests/csharp_mono.rs).
using System;
using Xpbd;
using Xpbd.Native;

static unsafe partial class MonoTests
{
    // A 24² cloth hanging from its top corners drawing a 60² proxy of the same square: the proxy's
    // corners are the cloth's, its vertex buffer holds what it reads, disposing the cloth disposes
    // the proxy (and its id goes stale natively), an instance's proxy shares the binding.
    static void RenderProxyDrawsTheClothAndDiesWithIt()
    {
        float[] positions, fine;
        uint[] indices, fineIndices;
        XpbdGridMesh.Create(24, 24, 1.0f, 1.0f, out positions, out indices);
        XpbdGridMesh.Create(60, 60, 1.0f, 1.0f, out fine, out fineIndices);
        int proxies = XpbdLibrary.LiveRenderProxyCount;
        using (var world = new XpbdWorld())
        {
            XpbdCloth cloth = world.CreateCloth(positions, indices);
            cloth.SetPinned(new uint[] { 0, 23 });
            XpbdRenderProxy proxy = cloth.CreateRenderProxy(fine, fineIndices);
            Expect(proxy.VertexCount == 3600 && XpbdLibrary.LiveRenderProxyCount == proxies + 1, "a proxy of 3600 vertices");
            for (int k = 0; k < 20; ++k) world.Step(1.0f / 60.0f);
            var drawn = new float[3 * 3600];
            var clothNow = new float[3 * 576];
            proxy.ReadPositions(drawn);
            cloth.ReadPositions(clothNow);
            int[,] corners = { { 0, 0 }, { 59, 23 }, { 3540, 552 }, { 3599, 575 } };
            for (int c = 0; c < 4; ++c)
            {
                for (int i = 0; i < 3; ++i)
                {
                    float d = Math.Abs(drawn[3 * corners[c, 0] + i] - clothNow[3 * corners[c, 1] + i]);
                    Expect(d < 1e-5f, "proxy corner " + corners[c, 0] + " on cloth vertex " + corners[c, 1] + ": " + d);
                }
            }
            var normals = new float[3 * 3600];
            proxy.ReadNormals(normals);
            using (var buffer = new XpbdPinnedArray<Vertex32>(3600))
            {
                proxy.WriteVertices(buffer, 32, 0, 12, 1.0f);
                for (int v = 0; v < 3600; v += 599)
                {
                    Vertex32 x = buffer.Array[v];
                    Expect(x.px == drawn[3 * v] && x.py == drawn[3 * v + 1] && x.pz == drawn[3 * v + 2], "written position " + v);
                    Expect(x.nx == normals[3 * v] && x.ny == normals[3 * v + 1] && x.nz == normals[3 * v + 2], "written normal " + v);
                }
                Throws<XpbdInvalidArgumentException>(() => proxy.WriteVertices(buffer, 32, 0, 12, float.NaN));
                Throws<XpbdBufferSizeMismatchException>(() => proxy.WriteVertices(buffer.Pointer, 32, 0, 12, 3599, 0.5f));
            }
            Throws<XpbdBufferSizeMismatchException>(() => proxy.ReadPositions(new float[3 * 3599]));
            var far = (float[])fine.Clone();
            far[3 * 100 + 2] = 0.5f;
            var e = Throws<XpbdInvalidMeshException>(() => cloth.CreateRenderProxy(far, fineIndices));
            Expect(e.Message.Contains("render vertex 100 lies 0.5"), e.Message);
            Throws<XpbdInvalidArgumentException>(() => cloth.CreateRenderProxy(fine, fineIndices, -1.0f));

            XpbdCloth instance = cloth.CreateInstance();
            XpbdRenderProxy shared = proxy.CreateInstance(instance);
            var sharedDrawn = new float[3 * 3600];
            shared.ReadPositions(sharedDrawn);
            ExpectSameBits(sharedDrawn, drawn, "an instance's proxy draws the instance, which starts as its source");
            XpbdCloth other = SmallCloth(world);
            Throws<XpbdInvalidArgumentException>(() => proxy.CreateInstance(other));

            cloth.Dispose();
            Expect(proxy.IsDisposed, "a proxy of a disposed cloth is disposed");
            Throws<ObjectDisposedException>(() => proxy.ReadPositions(drawn));
            var stale = new XpbdRenderProxyId { id = (ulong)typeof(XpbdNativeObject)
                .GetProperty("RawId", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance).GetValue(proxy, null) };
            fixed (float* p = drawn)
            {
                Expect(NativeMethods.xpbd_render_proxy_read_positions(stale, p, 3600) == XpbdResult.InvalidId, "its native id is stale");
            }
            proxy.Dispose();
            shared.ReadPositions(sharedDrawn); // the binding lives on with the instance
            Expect(XpbdLibrary.LiveRenderProxyCount == proxies + 1, "one proxy left");
        }
        Expect(XpbdLibrary.LiveRenderProxyCount == proxies, "none left with the world");
    }

    // A 32² cloth's edges through XpbdDebugLines: every edge green at rest, the buffers grow to the
    // full count once and a frame with as many lines allocates nothing; pins add their crosses.
    static void DebugLinesCountGrowAndColourTheEdges()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(32, 32, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        {
            var lines = new XpbdDebugLines(16);
            Expect(world.DebugLines((uint)XpbdDebugFlags.Edges, lines.Positions, lines.Colors) == 2945, "the full count from small buffers");
            Expect(lines.Read(world, XpbdDebugFlags.Edges) == 2945 && lines.Colors.Length >= 2945, "grown to hold them");
            float r, g, b, a;
            lines.Color(0, out r, out g, out b, out a);
            Expect(r == 0 && g == 1 && b == 0 && a == 1, "an edge at rest is green");
            for (int k = 0; k < 3; ++k) lines.Read(world, XpbdDebugFlags.Edges);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int k = 0; k < 10; ++k) lines.Read(world, XpbdDebugFlags.Edges);
            Expect(GC.GetAllocatedBytesForCurrentThread() == before, "reading as many lines again allocates nothing");
            cloth.SetPinned(new uint[] { 0, 31 });
            Expect(lines.Read(world, XpbdDebugFlags.Edges | XpbdDebugFlags.Pins) == 2951, "and two pins' crosses");
            Throws<XpbdInvalidArgumentException>(() => world.DebugLines(1u << 10, lines.Positions, lines.Colors));
            Throws<XpbdBufferSizeMismatchException>(() => world.DebugLines(1, new float[5], new uint[1]));
        }
    }

    // step_interval through the params: read back, range-checked, and a cloth at 4 steps in one
    // world step of four once it has reached its slot.
    static void StepIntervalReachesTheClothAndStepsItEveryFourth()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(10, 10, 1.0f, 1.0f, out positions, out indices);
        using (var world = new XpbdWorld())
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        {
            cloth.SetPinned(new uint[] { 0, 9 });
            XpbdClothParams p = cloth.GetParams();
            Expect(p.step_interval == 1, "default 1");
            p.step_interval = 17;
            var e = Throws<XpbdInvalidArgumentException>(() => cloth.SetParams(p));
            Expect(e.Message.Contains("step_interval"), e.Message);
            p.step_interval = 4;
            cloth.SetParams(p);
            Expect(cloth.GetParams().step_interval == 4, "read back");
            for (int k = 0; k < 8; ++k) world.Step(1.0f / 60.0f);
            int changed = 0;
            for (int k = 0; k < 16; ++k)
            {
                ulong before = cloth.StateHash();
                world.Step(1.0f / 60.0f);
                if (cloth.StateHash() != before) ++changed;
            }
            Expect(changed == 4, "4 steps in 16 world steps, not " + changed);
        }
    }

    // The engine-neutral simulation with a render proxy: the proxy's mesh given in the object's
    // space is placed as the simulated mesh was, and ReadProxyLocal gives it back in that space
    // (at rest: the mesh itself, whatever the object's transform).
    static void SimulationDrawsItsRenderProxyInLocalSpace()
    {
        float[] coarse, fine;
        uint[] coarseIndices, fineIndices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out coarse, out coarseIndices);
        XpbdGridMesh.Create(20, 20, 1.0f, 1.0f, out fine, out fineIndices);
        XpbdAffine toWorld = RotatedScaled();
        XpbdWorldDesc world = XpbdWorld.DefaultDesc();
        world.thread_count = 1;
        world.Gravity = new XpbdVector3(0, 0, 0);
        using (var simulation = new XpbdClothSimulation(coarse, coarseIndices, toWorld, XpbdCloth.DefaultDesc(), world))
        using (var positions = new XpbdPinnedArray<float>(3 * 400))
        using (var normals = new XpbdPinnedArray<float>(3 * 400))
        {
            simulation.CreateRenderProxy(fine, fineIndices, 0.05f);
            Throws<InvalidOperationException>(() => simulation.CreateRenderProxy(fine, fineIndices, 0.05f));
            simulation.SetStepInterval(3);
            Expect(simulation.Cloth.GetParams().step_interval == 3, "step interval set");
            simulation.Step(1.0f / 60.0f);
            simulation.ReadProxyLocal(0.5f, positions.Pointer, normals.Pointer, 400, toWorld.Inverse(), toWorld);
            for (int i = 0; i < 3 * 400; ++i)
            {
                Expect(Math.Abs(positions.Array[i] - fine[i]) < 1e-4f, "float " + i + " back in local space: " + positions.Array[i] + " vs " + fine[i]);
            }
            for (int v = 0; v < 400; ++v)
            {
                Expect(Math.Abs(normals.Array[3 * v + 2]) > 0.999f, "a flat mesh's local normal is along z");
            }
        }
    }
}
