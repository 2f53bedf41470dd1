// The C# bindings under Mono: compiled with mcs together with bindings/csharp and run against
// the built library by tests/csharp_mono.rs. Prints `bits <buffer kind>: ...` lines that the
// Rust test compares with the Rust API's result for the C example's scene, one line per test,
// and "N passed, M failed" last; exits 1 on any failure.
//
// Modes (first argument): `all` runs everything; `internal` runs the load check and the hanging
// cloth only, for the builds that exercise the DllImport library name (__Internal on iOS/WebGL).
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using Xpbd;
using Xpbd.Native;

// Stands in for UnityEngine.Vector3: three floats, one render vertex per element.
[StructLayout(LayoutKind.Sequential)]
struct Vec3
{
    public float x, y, z;
}

// An engine's interleaved vertex: position, normal, UV (32 bytes).
[StructLayout(LayoutKind.Sequential)]
struct Vertex32
{
    public float px, py, pz, nx, ny, nz, u, v;
}

// Structs a pinned buffer must refuse: a reference directly, or nested in a field.
struct HoldsReference
{
    public float x;
    public object tag;
}

struct NestsReference
{
    public Vec3 position;
    public HoldsReference inner;
}

static unsafe partial class MonoTests
{
    static int passed, failed;

    static int Main(string[] args)
    {
        string mode = args.Length > 0 ? args[0] : "all";
        Run("library_name_matches_the_build_defines", LibraryNameMatchesTheBuildDefines);
        Run("abi_version_is_checked_at_load", AbiVersionIsCheckedAtLoad);
        Run("hanging_cloth_reads_the_same_through_every_buffer_kind", HangingClothThroughEveryBufferKind);
        if (mode == "all")
        {
            Run("every_error_maps_to_its_exception_with_the_library_message", EveryErrorMapsToItsException);
            Run("result_codes_map_to_exception_types", ResultCodesMapToExceptionTypes);
            Run("dispose_twice_and_in_any_order_is_harmless", DisposeTwiceIsHarmless);
            Run("objects_left_to_the_gc_are_released_by_finalizers", ObjectsLeftToTheGcAreReleased);
            Run("dispose_all_destroys_every_live_world", DisposeAllDestroysEveryLiveWorld);
            Run("per_frame_calls_with_reused_buffers_allocate_nothing", PerFrameCallsAllocateNothing);
            Run("affine_inverse_and_normal_transform", AffineInverseAndNormalTransform);
            Run("pin_selection_by_colour_list_and_radius", PinSelection);
            Run("simulation_pins_follow_their_anchor_and_read_back_in_local_space", SimulationPinsFollowAnchor);
            Run("drape_on_sphere_reads_the_same_numbers_as_the_c_example", DrapeOnSphereAsTheCExample);
            Run("colliders_of_every_kind_read_back_as_created_and_reach_their_pose", CollidersReadBackAndReachTheirPose);
            Run("collider_layers_decide_what_the_cloth_collides_with", ColliderLayersDecideWhatCollides);
            Run("collider_errors_map_to_their_exceptions", ColliderErrorsMapToTheirExceptions);
            Run("mesh_report_counts_a_double_sided_quad_and_masses_read_back", MeshReportAndMasses);
            Run("mesh_shapes_are_built_shared_and_refuse_destruction_in_use", MeshShapesBuiltSharedAndRefused);
            Run("state_hash_is_equal_for_equal_runs_at_any_thread_count", StateHashEqualForEqualRuns);
            Run("engine_collider_shapes_follow_unity_conventions", EngineShapesFollowUnityConventions);
            Run("tracked_collider_follows_its_object_and_carries_the_cloth", TrackedColliderFollowsItsObject);
            Run("snapshots_teleport_and_the_explosion_guard", SnapshotsTeleportAndGuard);
            Run("engine_settings_reach_the_cloth_params", EngineSettingsReachTheClothParams);
            Run("frame_loop_advances_interpolates_and_writes_vertex_buffers", FrameLoopAdvanceInterpolateWrite);
            Run("frame_loop_allocates_nothing_and_reports_a_recovered_cloth_without_an_exception", FrameLoopAllocatesNothingAndReportsRecovery);
            Run("async_step_reads_the_state_at_begin_and_ends_like_step", AsyncStepReadsTheStateAtBeginAndEndsLikeStep);
            Run("advance_begin_and_end_give_what_advance_gives", AdvanceBeginAndEndGiveWhatAdvanceGives);
            Run("grab_follows_its_target_and_refuses_bad_input", GrabFollowsItsTargetAndRefusesBadInput);
            Run("pinned_arrays_refuse_types_that_hold_references", PinnedArraysRefuseReferences);
            Run("character_cloth_follows_its_pose_within_its_max_distances", CharacterClothFollowsItsPose);
            Run("skin_conversions_trim_sort_and_renormalise_bone_weights", SkinConversionsTrimSortAndRenormalise);
            Run("skinned_simulation_follows_the_hand_skinned_pose", SkinnedSimulationFollowsTheHandSkinnedPose);
            Run("render_proxy_draws_the_cloth_and_dies_with_it", RenderProxyDrawsTheClothAndDiesWithIt);
            Run("debug_lines_count_grow_and_colour_the_edges", DebugLinesCountGrowAndColourTheEdges);
            Run("step_interval_reaches_the_cloth_and_steps_it_every_fourth", StepIntervalReachesTheClothAndStepsItEveryFourth);
            Run("simulation_draws_its_render_proxy_in_local_space", SimulationDrawsItsRenderProxyInLocalSpace);
            Run("a_torn_cloth_is_followed_through_the_torn_mesh_and_refuses_bad_cuts", TornClothFollowedThroughTheTornMesh);
            Run("pressure_holds_a_closed_cloth_and_is_refused_on_an_open_one", PressureOnClosedAndOpenCloth);
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    static void Run(string name, Action test)
    {
        try
        {
            test();
            passed++;
            Console.WriteLine("ok " + name);
        }
        catch (Exception e)
        {
            failed++;
            Console.WriteLine("FAILED " + name + ": " + e);
        }
    }

    static void Expect(bool condition, string what)
    {
        if (!condition) throw new Exception("expected " + what);
    }

    static T Throws<T>(Action action) where T : Exception
    {
        try
        {
            action();
        }
        catch (Exception e)
        {
            if (e.GetType() == typeof(T)) return (T)e;
            throw new Exception("expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message, e);
        }
        throw new Exception("expected " + typeof(T).Name + ", nothing was thrown");
    }

    static uint Bits(float f)
    {
        return *(uint*)&f;
    }

    // ---- Loading ----

    static void LibraryNameMatchesTheBuildDefines()
    {
#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR
        const string expected = "__Internal";
#else
        const string expected = "xpbd_cloth";
#endif
        int checkedImports = 0;
        foreach (MethodInfo method in typeof(NativeMethods).GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            foreach (DllImportAttribute import in method.GetCustomAttributes(typeof(DllImportAttribute), false))
            {
                Expect(import.Value == expected, method.Name + " imports from " + expected + ", not " + import.Value);
                checkedImports++;
            }
        }
        Expect(checkedImports >= 20, "at least 20 DllImports, saw " + checkedImports);
        Console.WriteLine("library name: " + expected);
    }

    static void AbiVersionIsCheckedAtLoad()
    {
        XpbdLibrary.EnsureLoaded();
        Expect(NativeMethods.xpbd_abi_version() == XpbdLibrary.BindingsAbiVersion, "library and bindings agree");
        Expect(XpbdLibrary.AbiMismatchMessage(1, 1) == null, "no message when versions agree");
        string message = XpbdLibrary.AbiMismatchMessage(1, 2);
        Expect(message.Contains("ABI version 2") && message.Contains("generated for version 1"), "both versions named: " + message);
    }

    // ---- The C example's scene ----

    const int N = 32;

    static void HangingClothThroughEveryBufferKind()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(N, N, 1.0f, 1.0f, out positions, out indices);
        using (var world = new XpbdWorld())
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        {
            Expect(cloth.VertexCount == N * N && cloth.ParticleCount == N * N, "1024 vertices and particles");
            cloth.SetPinned(new uint[] { 0, N - 1 });
            for (int frame = 0; frame < 120; ++frame) world.Step(1.0f / 60.0f);
            float strain = cloth.GetStats().max_edge_strain;

            var viaArray = new float[3 * N * N];
            var normalsViaArray = new float[3 * N * N];
            cloth.ReadPositions(viaArray);
            cloth.ReadNormals(normalsViaArray);
            Report("float[]", viaArray, strain);

            IntPtr native = Marshal.AllocHGlobal(3 * N * N * sizeof(float));
            try
            {
                var copy = new float[3 * N * N];
                cloth.ReadPositions(native, N * N);
                Marshal.Copy(native, copy, 0, copy.Length);
                Report("IntPtr", copy, strain);
                cloth.ReadNormals(native, N * N);
                Marshal.Copy(native, copy, 0, copy.Length);
                ExpectSameBits(copy, normalsViaArray, "normals via IntPtr");
            }
            finally
            {
                Marshal.FreeHGlobal(native);
            }

            using (var pinned = new XpbdPinnedArray<float>(3 * N * N))
            using (var pinnedVec = new XpbdPinnedArray<Vec3>(N * N))
            {
                cloth.ReadPositions(pinned);
                Report("pinned float[]", pinned.Array, strain);
                cloth.ReadPositions(pinnedVec);
                var flat = new float[3 * N * N];
                for (int v = 0; v < N * N; ++v)
                {
                    flat[3 * v] = pinnedVec.Array[v].x;
                    flat[3 * v + 1] = pinnedVec.Array[v].y;
                    flat[3 * v + 2] = pinnedVec.Array[v].z;
                }
                Report("pinned Vec3[]", flat, strain);
                cloth.ReadNormals(pinned);
                ExpectSameBits(pinned.Array, normalsViaArray, "normals via pinned array");
            }
            // Normals are unit vectors facing roughly +z or -z (the sheet hangs in the x-y plane).
            int mid = 3 * ((N / 2) * N + N / 2);
            float nx = normalsViaArray[mid], ny = normalsViaArray[mid + 1], nz = normalsViaArray[mid + 2];
            Expect(Math.Abs(Math.Sqrt(nx * nx + ny * ny + nz * nz) - 1.0) < 1e-5 && Math.Abs(nz) > 0.5, "a unit normal out of the sheet");
        }
    }

    // Prints the C example's `bits:` numbers (bottom-edge midpoint and max strain) plus a hash of
    // every position, for tests/csharp_mono.rs to compare with the Rust API.
    static void Report(string kind, float[] p, float strain)
    {
        int left = 3 * ((N - 1) * N + N / 2 - 1), right = 3 * ((N - 1) * N + N / 2);
        var mid = new float[3];
        for (int k = 0; k < 3; ++k) mid[k] = (float)(0.5f * (float)(p[left + k] + p[right + k]));
        Console.WriteLine("bits " + kind + ": " + Bits(mid[0]).ToString("x8") + " " + Bits(mid[1]).ToString("x8") + " " +
            Bits(mid[2]).ToString("x8") + " " + Bits(strain).ToString("x8") + " positions-fnv1a " + Fnv1a(p).ToString("x16"));
    }

    // FNV-1a 64 over the little-endian bytes of every float's bit pattern.
    static ulong Fnv1a(float[] values)
    {
        ulong hash = 0xcbf29ce484222325UL;
        foreach (float f in values)
        {
            uint bits = Bits(f);
            for (int b = 0; b < 4; ++b)
            {
                hash ^= (bits >> (8 * b)) & 0xff;
                hash *= 0x100000001b3UL;
            }
        }
        return hash;
    }

    static void ExpectSameBits(float[] a, float[] b, string what)
    {
        Expect(a.Length == b.Length, what + ": same length");
        for (int i = 0; i < a.Length; ++i)
        {
            if (Bits(a[i]) != Bits(b[i])) throw new Exception(what + ": element " + i + " differs: " + a[i] + " vs " + b[i]);
        }
    }

    // ---- Errors ----

    static XpbdCloth SmallCloth(XpbdWorld world)
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(3, 3, 1.0f, 1.0f, out positions, out indices);
        return world.CreateCloth(positions, indices);
    }

    static void EveryErrorMapsToItsException()
    {
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        {
            XpbdCloth cloth = SmallCloth(world);

            var e1 = Throws<XpbdInvalidArgumentException>(() => world.Step(0.0f));
            Expect(e1.Result == XpbdResult.InvalidArgument && e1.Message.StartsWith("xpbd_world_step:"), "step message: " + e1.Message);
            Expect(e1.Message == XpbdLibrary.LastErrorMessage(), "the exception carries the library's message");

            XpbdWorldDesc bad = XpbdWorld.DefaultDesc();
            bad.substeps = 0;
            var e2 = Throws<XpbdInvalidArgumentException>(() => new XpbdWorld(bad));
            Expect(e2.Message.StartsWith("xpbd_world_create:"), "create message: " + e2.Message);

            var nan = new float[] { 0, 0, 0, 1, 0, 0, 0, float.NaN, 0 };
            var e3 = Throws<XpbdInvalidMeshException>(() => world.CreateCloth(nan, new uint[] { 0, 1, 2 }));
            Expect(e3.Message.Contains("xpbd_cloth_create") && e3.Message.Contains("2"), "names the vertex: " + e3.Message);
            Throws<XpbdInvalidMeshException>(() => world.CreateCloth(new float[0], new uint[0]));

            var e4 = Throws<XpbdBufferSizeMismatchException>(() => cloth.ReadPositions(new float[3 * 8]));
            Expect(e4.Message.StartsWith("xpbd_cloth_read_positions:"), "from the library: " + e4.Message);
            Throws<XpbdBufferSizeMismatchException>(() => cloth.ReadNormals(new float[10])); // not whole vertices
            Throws<XpbdBufferSizeMismatchException>(() => cloth.SetPinned(new uint[] { 0, 1 }, new float[3]));

            var e5 = Throws<XpbdNullPointerException>(() => cloth.ReadPositions(IntPtr.Zero, 9));
            Expect(e5.Message.Contains("`out` is NULL"), "null message: " + e5.Message);
            Throws<XpbdNullPointerException>(() => cloth.SetPinTargets(IntPtr.Zero, 1, IntPtr.Zero));

            var e6 = Throws<XpbdInvalidArgumentException>(() => cloth.SetPinned(new uint[] { 0, 9 }));
            Expect(e6.Message.Contains("9") && e6.Message.Contains("position 1"), "names the pin: " + e6.Message);
            Throws<XpbdInvalidArgumentException>(() => cloth.SetPinTargets(new uint[] { 4 }, new float[] { 0, 0, 0 })); // not pinned
            XpbdClothParams p = cloth.GetParams();
            p.stretch_compliance = -1.0f;
            Throws<XpbdInvalidArgumentException>(() => cloth.SetParams(p));

            // An id destroyed behind the wrapper's back: the library detects it, nothing crashes.
            XpbdClothId raw = cloth.Id;
            Expect(NativeMethods.xpbd_cloth_destroy(raw) == XpbdResult.Ok, "raw destroy");
            var e7 = Throws<XpbdInvalidIdException>(() => cloth.ReadPositions(new float[27]));
            Expect(e7.Message.Contains("stale"), "invalid id message: " + e7.Message);
            cloth.Dispose(); // its id is gone already: still harmless

            // Managed misuse is reported by .NET's own exceptions.
            Throws<ObjectDisposedException>(() => cloth.ReadPositions(new float[27]));
            Throws<ArgumentNullException>(() => world.CreateCloth(null, new uint[0]));
        }
    }

    static void ResultCodesMapToExceptionTypes()
    {
        foreach (XpbdResult code in Enum.GetValues(typeof(XpbdResult)))
        {
            if (code == XpbdResult.Ok) continue;
            XpbdException e = XpbdException.FromResult(code, "message of " + code);
            Expect(e.GetType().Name == "Xpbd" + code + "Exception", code + " maps to Xpbd" + code + "Exception, not " + e.GetType().Name);
            Expect(e.Result == code && e.Message == "message of " + code, code + " keeps its code and message");
        }
        XpbdException unknown = XpbdException.FromResult((XpbdResult)42, "future");
        Expect(unknown.GetType() == typeof(XpbdException) && unknown.Message.Contains("42") && unknown.Message.Contains("future"),
            "an unknown code keeps its number and message");
    }

    // ---- Lifetime ----

    static void DisposeTwiceIsHarmless()
    {
        int worlds = XpbdLibrary.LiveWorldCount, cloths = XpbdLibrary.LiveClothCount;
        var world = new XpbdWorld();
        XpbdCloth a = SmallCloth(world), b = SmallCloth(world);
        Expect(XpbdLibrary.LiveClothCount == cloths + 2, "two cloths alive");
        a.Dispose();
        a.Dispose();
        Expect(a.IsDisposed && XpbdLibrary.LiveClothCount == cloths + 1, "one cloth released once");
        // Dispose from another thread (as a finalizer would), then again here.
        var worker = new Thread(() => b.Dispose());
        worker.Start();
        worker.Join();
        b.Dispose();
        Expect(XpbdLibrary.LiveClothCount == cloths, "both released");
        int colliders = XpbdLibrary.LiveColliderCount;
        XpbdCollider sphere = world.CreateSphere(0.1f, XpbdPose.Identity), box = world.CreateBox(0.1f, 0.1f, 0.1f, 0, XpbdPose.Identity);
        Expect(XpbdLibrary.LiveColliderCount == colliders + 2, "two colliders alive");
        sphere.Dispose();
        sphere.Dispose();
        Expect(sphere.IsDisposed && XpbdLibrary.LiveColliderCount == colliders + 1, "one collider released once");
        var colliderWorker = new Thread(() => box.Dispose());
        colliderWorker.Start();
        colliderWorker.Join();
        box.Dispose();
        Expect(XpbdLibrary.LiveColliderCount == colliders, "both colliders released");
        Throws<ObjectDisposedException>(() => sphere.SetPose(XpbdPose.Identity));
        XpbdCloth c = SmallCloth(world);
        XpbdCollider plane = world.CreatePlane(XpbdPose.Identity);
        world.Dispose();
        world.Dispose();
        Expect(c.IsDisposed, "a cloth of a disposed world is disposed");
        Expect(plane.IsDisposed, "a collider of a disposed world is disposed");
        c.Dispose();
        plane.Dispose();
        Throws<ObjectDisposedException>(() => world.Step(0.01f));
        Throws<ObjectDisposedException>(() => c.ReadPositions(new float[27]));
        Throws<ObjectDisposedException>(() => plane.GetPose());
        Expect(XpbdLibrary.LiveWorldCount == worlds && XpbdLibrary.LiveClothCount == cloths && XpbdLibrary.LiveColliderCount == colliders,
            "back to where it started");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static XpbdWorld MakeGarbage()
    {
        for (int w = 0; w < 3; ++w)
        {
            var world = new XpbdWorld();
            SmallCloth(world);
            SmallCloth(world);
            world.CreateSphere(0.1f, XpbdPose.Identity);
        }
        var kept = new XpbdWorld();
        for (int c = 0; c < 3; ++c) SmallCloth(kept);
        kept.CreateCapsule(0.1f, 0.2f, XpbdPose.Identity);
        kept.CreatePlane(XpbdPose.At(0, -5, 0));
        return kept;
    }

    static void CollectUntil(Func<bool> done)
    {
        for (int attempt = 0; attempt < 20 && !done(); ++attempt)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }

    static void ObjectsLeftToTheGcAreReleased()
    {
        int worlds = XpbdLibrary.LiveWorldCount, cloths = XpbdLibrary.LiveClothCount, colliders = XpbdLibrary.LiveColliderCount;
        XpbdWorld kept = MakeGarbage();
        Expect(XpbdLibrary.LiveWorldCount == worlds + 4 && XpbdLibrary.LiveClothCount == cloths + 9, "4 worlds and 9 cloths created");
        Expect(XpbdLibrary.LiveColliderCount == colliders + 5, "5 colliders created");
        CollectUntil(() => XpbdLibrary.LiveClothCount == cloths && XpbdLibrary.LiveColliderCount == colliders);
        // The unreferenced worlds are gone with their cloths; the kept world lost its unreferenced cloths.
        Expect(XpbdLibrary.LiveWorldCount == worlds + 1, "only the kept world is alive: " + XpbdLibrary.LiveWorldCount);
        Expect(XpbdLibrary.LiveClothCount == cloths, "every unreferenced cloth released: " + XpbdLibrary.LiveClothCount);
        Expect(XpbdLibrary.LiveColliderCount == colliders, "every unreferenced collider released: " + XpbdLibrary.LiveColliderCount);
        kept.Step(1.0f / 60.0f); // still usable
        GC.KeepAlive(kept);
        kept = null;
        CollectUntil(() => XpbdLibrary.LiveWorldCount == worlds);
        Expect(XpbdLibrary.LiveWorldCount == worlds, "the last world released by its finalizer");
    }

    static void DisposeAllDestroysEveryLiveWorld()
    {
        int worlds = XpbdLibrary.LiveWorldCount;
        var a = new XpbdWorld();
        var b = new XpbdWorld();
        XpbdCloth cloth = SmallCloth(b);
        XpbdCollider collider = a.CreateSphere(0.1f, XpbdPose.Identity);
        Expect(XpbdWorld.DisposeAll() == 2 + worlds, "disposed both (and any others)");
        Expect(a.IsDisposed && b.IsDisposed && cloth.IsDisposed && collider.IsDisposed, "wrappers know");
        Expect(XpbdLibrary.LiveWorldCount == 0 && XpbdLibrary.LiveClothCount == 0 && XpbdLibrary.LiveColliderCount == 0, "nothing left natively");
        Expect(XpbdWorld.DisposeAll() == 0, "nothing left to dispose");
    }

    // Pins, a collider following its object, a step and reads: nothing allocated per frame.
    static void PerFrameCallsAllocateNothing()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        using (var pins = new XpbdPinnedArray<uint>(new uint[] { 0, 7 }))
        using (var targets = new XpbdPinnedArray<Vec3>(2))
        using (var outPositions = new XpbdPinnedArray<Vec3>(64))
        using (var outNormals = new XpbdPinnedArray<float>(3 * 64))
        {
            cloth.SetPinned(pins.Array);
            XpbdTrackedCollider ball = new XpbdTrackedCollider(world, XpbdEngineShape.Capsule(0, 0, 0, XpbdAxis.Z, 0.4f, 0.1f, 1, 1, 1),
                XpbdAffine.Translation(0.5f, 0.5f, 0.2f), 0, 0, 0, 1, XpbdColliderContact.Default);
            var step = new Action<int>(frame =>
            {
                targets.Array[1].x = 1.0f + 0.001f * frame;
                cloth.SetPinTargets(pins, targets);
                ball.Follow(XpbdAffine.Translation(0.5f, 0.5f, 0.2f - 0.002f * frame), 0, 0, 0, 1);
                world.Step(1.0f / 60.0f);
                cloth.ReadPositions(outPositions);
                cloth.ReadNormals(outNormals);
                cloth.ReadPositions(outPositions.Pointer, 64);
            });
            targets.Array[0] = new Vec3 { x = 0, y = 1, z = 0 };
            targets.Array[1] = new Vec3 { x = 1, y = 1, z = 0 };
            for (int frame = 0; frame < 10; ++frame) step(frame); // JIT and first-call costs
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int frame = 10; frame < 110; ++frame) step(frame);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Expect(allocated == 0, "no managed allocation in 100 frames, saw " + allocated + " bytes");
            Expect(Math.Abs(outPositions.Array[7].x - (1.0f + 0.001f * 109)) < 1e-5f, "the moved pin reached its target: " + outPositions.Array[7].x);
        }
    }

    // ---- Engine-neutral helpers used by the Unity component ----

    static XpbdAffine RotatedScaled()
    {
        // Rotation of 30° about z, then scale (2, 0.5, 1.5), then translation (1, 2, 3).
        float c = (float)Math.Cos(Math.PI / 6), s = (float)Math.Sin(Math.PI / 6);
        return new XpbdAffine
        {
            M00 = 2 * c, M01 = -2 * s, M02 = 0, M03 = 1,
            M10 = 0.5f * s, M11 = 0.5f * c, M12 = 0, M13 = 2,
            M20 = 0, M21 = 0, M22 = 1.5f, M23 = 3,
        };
    }

    static void AffineInverseAndNormalTransform()
    {
        XpbdAffine m = RotatedScaled(), inv = m.Inverse();
        float x, y, z, bx, by, bz;
        m.TransformPoint(0.3f, -0.7f, 0.2f, out x, out y, out z);
        inv.TransformPoint(x, y, z, out bx, out by, out bz);
        Expect(Math.Abs(bx - 0.3f) < 1e-6 && Math.Abs(by + 0.7f) < 1e-6 && Math.Abs(bz - 0.2f) < 1e-6, "inverse round trip");
        Throws<ArgumentException>(() => new XpbdAffine().Inverse());

        // A local surface z = x + y has normal (−1, −1, 1)/√3 and tangents (1, 0, 1), (0, 1, 1).
        // In world space the tangents map through A; a world normal perpendicular to both, taken
        // back with TransformNormalsByTranspose(localToWorld), must be the local normal again.
        float t1x, t1y, t1z, t2x, t2y, t2z, ox, oy, oz;
        m.TransformPoint(1, 0, 1, out t1x, out t1y, out t1z);
        m.TransformPoint(0, 1, 1, out t2x, out t2y, out t2z);
        m.TransformPoint(0, 0, 0, out ox, out oy, out oz);
        t1x -= ox; t1y -= oy; t1z -= oz; t2x -= ox; t2y -= oy; t2z -= oz;
        var n = new float[] { t1y * t2z - t1z * t2y, t1z * t2x - t1x * t2z, t1x * t2y - t1y * t2x };
        fixed (float* p = n) m.TransformNormalsByTranspose((IntPtr)p, 1);
        float k = (float)(1 / Math.Sqrt(3));
        Expect(Math.Abs(n[0] + k) < 1e-6 && Math.Abs(n[1] + k) < 1e-6 && Math.Abs(n[2] - k) < 1e-6,
            "normal back in local space: " + n[0] + ", " + n[1] + ", " + n[2]);
    }

    static void PinSelection()
    {
        var rgba = new float[] { 1, 0, 0, 1, 0, 0, 0, 1, 0.6f, 1, 0, 1 };
        uint[] red = XpbdPinSelection.FromColorChannel(rgba, 0, 0.5f);
        Expect(red.Length == 2 && red[0] == 0 && red[1] == 2, "red ≥ 0.5: vertices 0 and 2");
        Expect(XpbdPinSelection.FromColorChannel(rgba, 1, 0.5f).Length == 1, "green: vertex 2");
        Throws<ArgumentOutOfRangeException>(() => XpbdPinSelection.FromColorChannel(rgba, 4, 0.5f));
        uint[] list = XpbdPinSelection.FromList(new[] { 5, 1, 5, 3 }, 6);
        Expect(list.Length == 3 && list[0] == 1 && list[1] == 3 && list[2] == 5, "sorted, unique");
        var e = Throws<ArgumentOutOfRangeException>(() => XpbdPinSelection.FromList(new[] { 1, 6 }, 6));
        Expect(e.Message.Contains("entry 1"), "names the entry: " + e.Message);
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(3, 3, 1.0f, 1.0f, out positions, out indices);
        uint[] top = XpbdPinSelection.WithinRadius(positions, 0.5f, 1.2f, 0.0f, 0.55f);
        Expect(top.Length == 3 && top[0] == 0 && top[2] == 2, "only the top row is within 0.55 m of (0.5, 1.2, 0)");
    }

    static void SimulationPinsFollowAnchor()
    {
        float[] local;
        uint[] indices;
        XpbdGridMesh.Create(5, 5, 1.0f, 1.0f, out local, out indices);
        XpbdAffine objectToWorld = XpbdAffine.Translation(10, 0, 0);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var sim = new XpbdClothSimulation(local, indices, objectToWorld, XpbdCloth.DefaultDesc(), single))
        {
            XpbdPinGroup corners = sim.Pin(new uint[] { 0, 4 }, objectToWorld);
            // The object moves 0.25 m along z; its pins follow, the rest trails and falls.
            XpbdAffine moved = XpbdAffine.Translation(10, 0, 0.25f);
            var world = new float[3 * 25];
            var positions = new float[3 * 25];
            var normals = new float[3 * 25];
            for (int frame = 0; frame < 30; ++frame)
            {
                corners.MoveAnchor(moved);
                sim.Step(1.0f / 60.0f);
            }
            sim.Cloth.ReadPositions(world);
            Expect(Math.Abs(world[12] - 11.0f) < 1e-5 && Math.Abs(world[14] - 0.25f) < 1e-5, "pin 4 at its world target: " + world[12] + ", " + world[14]);
            fixed (float* p = positions)
            fixed (float* n = normals)
            {
                sim.ReadLocal((IntPtr)p, (IntPtr)n, 25, moved.Inverse(), moved);
            }
            // In the moved object's space the pins are back at their rest positions.
            Expect(Math.Abs(positions[12] - 1.0f) < 1e-5 && Math.Abs(positions[13] - 1.0f) < 1e-5 && Math.Abs(positions[14]) < 1e-5,
                "pin 4 at rest in local space");
            // Pinned at the top, the free bottom edge swings behind the motion (−z in the object's space).
            Expect(positions[3 * 22 + 2] < -0.05f, "the bottom middle trails behind: local z = " + positions[3 * 22 + 2]);
            Expect(Math.Abs(normals[3 * 12] * normals[3 * 12] + normals[3 * 12 + 1] * normals[3 * 12 + 1] + normals[3 * 12 + 2] * normals[3 * 12 + 2] - 1) < 1e-5,
                "local normals are unit");
            sim.Dispose();
            sim.Dispose();
            Expect(sim.World.IsDisposed && sim.Cloth.IsDisposed, "disposed");
        }
    }

    // ---- Colliders ----

    // examples/c/drape_on_sphere.c in C#: a 32 x 32 cloth (1 m) 0.3 m above a sphere of radius
    // 0.3 m at the origin, air drag 5/s, 2 s at 60 Hz. Prints the C example's `bits:` numbers
    // plus a hash of every position and the library's state hash, for tests/csharp_mono.rs to
    // compare with the Rust API's run of the same scene.
    static void DrapeOnSphereAsTheCExample()
    {
        const float radius = 0.3f;
        var positions = new float[3 * N * N];
        for (int j = 0; j < N; ++j)
        {
            for (int i = 0; i < N; ++i)
            {
                // Explicit casts: every intermediate rounded to float, as in C.
                positions[3 * (j * N + i)] = (float)((float)i / (float)(N - 1)) - 0.5f;
                positions[3 * (j * N + i) + 1] = 2.0f * radius;
                positions[3 * (j * N + i) + 2] = (float)((float)j / (float)(N - 1)) - 0.5f;
            }
        }
        var indices = new uint[6 * (N - 1) * (N - 1)];
        int t = 0;
        for (uint j = 0; j < N - 1; ++j)
        {
            for (uint i = 0; i < N - 1; ++i)
            {
                uint a = j * N + i, b = a + 1, c = a + N, d = a + N + 1;
                indices[t++] = a; indices[t++] = c; indices[t++] = b;
                indices[t++] = b; indices[t++] = c; indices[t++] = d;
            }
        }
        using (var world = new XpbdWorld())
        {
            XpbdCollider sphere = world.CreateSphere(radius, XpbdPose.Identity);
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            XpbdCloth cloth = world.CreateCloth(positions, indices, null, desc);
            for (int frame = 0; frame < 120; ++frame) world.Step(1.0f / 60.0f);
            var x = new float[3 * N * N];
            cloth.ReadPositions(x);
            XpbdClothStats stats = cloth.GetStats();
            float thickness = desc.collision_thickness, deepest = 0, lowest = float.PositiveInfinity;
            for (int v = 0; v < N * N; ++v)
            {
                float px = x[3 * v], py = x[3 * v + 1], pz = x[3 * v + 2];
                deepest = Math.Max(deepest, thickness - ((float)Math.Sqrt(px * px + py * py + pz * pz) - radius));
                lowest = Math.Min(lowest, py);
            }
            int topVertex = 3 * (N / 2 * N + N / 2); // the vertex nearest the sphere's top
            float top = x[topVertex + 1];
            float topGap = (float)Math.Sqrt(x[topVertex] * x[topVertex] + top * top + x[topVertex + 2] * x[topVertex + 2]) - radius - thickness;
            Console.WriteLine("drape bits: " + Bits(top).ToString("x8") + " " + Bits(lowest).ToString("x8") + " " +
                Bits(stats.max_penetration).ToString("x8") + " " + stats.contact_count + " positions-fnv1a " + Fnv1a(x).ToString("x16") +
                " state-hash " + cloth.StateHash().ToString("x16"));
            // What the C example checks itself: it rests on the sphere, nothing sinks in.
            Expect(deepest <= 0.01f * thickness, "no vertex deeper than 1 % of the thickness: " + deepest);
            Expect(Math.Abs(topGap) <= 0.01f * thickness, "the vertex over the top rests on the thickened sphere: gap " + topGap);
            Expect(lowest < 0 && stats.contact_count > 100, "the flaps hang below the equator: " + lowest + ", contacts " + stats.contact_count);
            GC.KeepAlive(sphere);
        }
    }

    static void ExpectPose(XpbdPose p, XpbdPose q, float tolerance, string what)
    {
        float[] a = { p.X, p.Y, p.Z, p.Qx, p.Qy, p.Qz, p.Qw }, b = { q.X, q.Y, q.Z, q.Qx, q.Qy, q.Qz, q.Qw };
        for (int k = 0; k < 7; ++k)
        {
            if (!(Math.Abs(a[k] - b[k]) <= tolerance)) throw new Exception(what + ": component " + k + " is " + a[k] + ", expected " + b[k]);
        }
    }

    static void CollidersReadBackAndReachTheirPose()
    {
        float h = (float)Math.Sqrt(0.5);
        var turned = new XpbdPose(1, 2, 3, 0, 0, h, h); // a quarter turn about z
        var contact = new XpbdColliderContact(0.9f, 0.7f, 0x6);
        using (var world = new XpbdWorld())
        {
            XpbdCollider sphere = world.CreateSphere(0.25f, turned, contact);
            XpbdCollider capsule = world.CreateCapsule(0.05f, 0.4f, turned, contact);
            XpbdCollider plane = world.CreatePlane(turned, contact);
            XpbdCollider box = world.CreateBox(0.1f, 0.2f, 0.3f, 0.05f, turned, contact);
            var kinds = new[] { XpbdColliderKind.Sphere, XpbdColliderKind.Capsule, XpbdColliderKind.Plane, XpbdColliderKind.Box };
            var all = new[] { sphere, capsule, plane, box };
            for (int k = 0; k < 4; ++k)
            {
                XpbdColliderDesc d = all[k].GetDesc();
                Expect(all[k].Kind == kinds[k] && d.kind == (uint)kinds[k], kinds[k] + " reads back as its kind");
                Expect(d.static_friction == 0.9f && d.kinetic_friction == 0.7f && d.layers == 0x6, kinds[k] + " keeps friction and layers");
                Expect(d.position[0] == 1 && d.position[1] == 2 && d.position[2] == 3, kinds[k] + " at its position");
                ExpectPose(all[k].GetPose(), turned, 1e-7f, kinds[k] + " creation pose");
            }
            XpbdColliderDesc s = sphere.GetDesc(), c = capsule.GetDesc(), b = box.GetDesc();
            Expect(s.radius == 0.25f, "sphere radius");
            Expect(c.radius == 0.05f && c.half_height == 0.4f, "capsule radius and half height");
            Expect(b.half_extents[0] == 0.1f && b.half_extents[1] == 0.2f && b.half_extents[2] == 0.3f && b.radius == 0.05f, "box half extents and rounding");

            // With default contact: the library's defaults, read from its default descriptor.
            XpbdColliderDesc defaults = XpbdCollider.DefaultDesc();
            XpbdColliderDesc plain = world.CreateSphere(1, XpbdPose.Identity).GetDesc();
            Expect(plain.static_friction == defaults.static_friction && plain.kinetic_friction == defaults.kinetic_friction &&
                plain.layers == defaults.layers, "default friction and layers");
            Expect(defaults.kind == (uint)XpbdColliderKind.Sphere && defaults.radius == 0 && defaults.half_extents[0] == 0,
                "the plain default descriptor has no dimensions");
            var noRadius = Throws<XpbdInvalidArgumentException>(() => world.CreateCollider(defaults));
            Expect(noRadius.Message.Contains("`radius` = 0"), "the plain default is rejected naming radius: " + noRadius.Message);
            // Per-kind defaults: a box's radius (its edge rounding) is 0, not a sphere's 0.5 m.
            XpbdColliderDesc boxDefaults = XpbdCollider.DefaultDesc(XpbdColliderKind.Box);
            Expect(boxDefaults.kind == (uint)XpbdColliderKind.Box && boxDefaults.radius == 0 && boxDefaults.half_extents[1] == 0.5f,
                "box defaults: half extents 0.5 m, sharp");
            XpbdColliderDesc sphereDefaults = XpbdCollider.DefaultDesc(XpbdColliderKind.Sphere);
            Expect(sphereDefaults.radius == 0.5f && sphereDefaults.half_extents[0] == 0, "sphere defaults: radius 0.5 m only");
            XpbdColliderDesc capsuleDefaults = XpbdCollider.DefaultDesc(XpbdColliderKind.Capsule);
            Expect(capsuleDefaults.radius == 0.5f && capsuleDefaults.half_height == 0.5f, "capsule defaults: 2 m tall");
            using (XpbdCollider cube = world.CreateCollider(boxDefaults))
            {
                Expect(cube.GetDesc().radius == 0 && cube.Kind == XpbdColliderKind.Box, "a default box is created sharp");
            }

            // set_pose is a target: unchanged until the step, reached exactly by its end.
            var target = new XpbdPose(-0.5f, 1.25f, 4, h, 0, 0, h);
            box.SetPose(target);
            ExpectPose(box.GetPose(), turned, 1e-7f, "before the step");
            world.Step(1.0f / 60.0f);
            ExpectPose(box.GetPose(), target, 1e-7f, "after the step");
            box.SetPose(0, 0, 0, 0, 0, 0, 1);
            world.Step(1.0f / 60.0f);
            ExpectPose(box.GetPose(), XpbdPose.Identity, 0, "the seven-float overload");
        }
    }

    // A 5 x 5 cloth dropped onto a box on layer 2: with the box's bit in its mask it rests on
    // the box top; without, it falls through.
    static float RestingHeight(uint clothMask)
    {
        var positions = new float[3 * 25];
        for (int v = 0; v < 25; ++v)
        {
            positions[3 * v] = 0.1f * (v % 5) - 0.2f;
            positions[3 * v + 1] = 0.2f;
            positions[3 * v + 2] = 0.1f * (v / 5) - 0.2f;
        }
        var indices = new uint[6 * 16];
        int t = 0;
        for (uint j = 0; j < 4; ++j)
        {
            for (uint i = 0; i < 4; ++i)
            {
                uint a = j * 5 + i;
                indices[t++] = a; indices[t++] = a + 5; indices[t++] = a + 1;
                indices[t++] = a + 1; indices[t++] = a + 5; indices[t++] = a + 6;
            }
        }
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        {
            world.CreateBox(1, 0.1f, 1, 0, XpbdPose.Identity, new XpbdColliderContact(0.5f, 0.4f, 0x2));
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            desc.collision_mask = clothMask;
            desc.linear_damping = 0; // undamped: the ignored box lets it fall freely
            XpbdCloth cloth = world.CreateCloth(positions, indices, null, desc);
            for (int frame = 0; frame < 60; ++frame) world.Step(1.0f / 60.0f);
            var x = new float[3 * 25];
            cloth.ReadPositions(x);
            return x[3 * 12 + 1];
        }
    }

    // A unit quad given twice (the second copy reversed, on its own vertices that weld onto the
    // first): two duplicates dropped, four vertices welded, mass = areal density x 1 m^2.
    static void MeshReportAndMasses()
    {
        float[] positions = { 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1 };
        uint[] indices = { 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6 };
        using (var world = new XpbdWorld())
        {
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            XpbdCloth cloth = world.CreateCloth(positions, indices, null, desc);
            XpbdMeshReport report = cloth.GetMeshReport();
            Expect(report.vertex_count == 8 && report.particle_count == 4 && report.welded_vertices == 8, "8 vertices welded onto 4 particles");
            Expect(report.triangle_count == 2 && report.duplicate_triangles == 2, "the reversed copy dropped: " + report.duplicate_triangles);
            ExpectNear(report.total_mass, desc.areal_density, 1e-6f, "mass of 1 m^2");
            var masses = new float[8];
            cloth.ReadVertexMasses(masses);
            float sum = masses[0] + masses[1] + masses[2] + masses[3];
            ExpectNear(sum, report.total_mass, 1e-6f, "the first copies' masses add up to the total");
            Expect(masses[4] == masses[0] && masses[7] == masses[3], "welded copies read their particle's mass");
            bool threw = false;
            try { cloth.ReadVertexMasses(new float[3]); } catch (XpbdException) { threw = true; }
            Expect(threw, "a wrong length is refused");
        }
    }

    static void ColliderLayersDecideWhatCollides()
    {
        float thickness = XpbdCloth.DefaultDesc().collision_thickness;
        float resting = RestingHeight(0x2 | 0x8), ignored = RestingHeight(0x1);
        Expect(Math.Abs(resting - (0.1f + thickness)) < 0.01f * thickness, "rests on the box top + thickness: " + resting);
        // Free fall from 0.2 m for 1 s ends about 4.7 m lower.
        Expect(ignored < -4.0f, "falls through a box on another layer: " + ignored);
    }

    // A closed box mesh of half extents (hx, hy, hz) m, faces wound outwards.
    static void BoxMesh(float hx, float hy, float hz, out float[] positions, out uint[] indices)
    {
        positions = new float[24];
        for (int k = 0; k < 8; k++)
        {
            positions[3 * k] = (k & 1) != 0 ? hx : -hx;
            positions[3 * k + 1] = (k & 2) != 0 ? hy : -hy;
            positions[3 * k + 2] = (k & 4) != 0 ? hz : -hz;
        }
        indices = new uint[] { 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5 };
    }

    static void MeshShapesBuiltSharedAndRefused()
    {
        using (var world = new XpbdWorld())
        {
            float[] positions;
            uint[] indices;
            BoxMesh(0.5f, 0.1f, 0.5f, out positions, out indices);
            int shapes = XpbdLibrary.LiveMeshShapeCount;
            var e1 = Throws<XpbdInvalidMeshException>(() => world.CreateMeshShape(positions, new uint[0]));
            Expect(e1.Message.StartsWith("xpbd_mesh_shape_create:") && e1.Message.Contains("triangles"), "names the fault: " + e1.Message);
            Throws<XpbdInvalidArgumentException>(() => world.CreateMeshShape(positions, indices, -1, true));
            var e2 = Throws<XpbdInvalidMeshException>(() => world.CreateMeshShapeAsync(positions, new uint[] { 0, 1, 9 }, 0, true));
            Expect(e2.Message.Contains("triangle 0") && e2.Message.Contains("9"), "names the triangle and the index: " + e2.Message);
            Expect(XpbdLibrary.LiveMeshShapeCount == shapes, "nothing half-created");

            // Built off the calling thread: usable by a collider at once, ready after polling.
            XpbdMeshShape pending = world.CreateMeshShapeAsync(positions, indices, 0.005f, true);
            XpbdCollider early = world.CreateMeshCollider(pending, XpbdPose.At(0, -3, 0));
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (!pending.IsReady && clock.ElapsedMilliseconds < 60000) System.Threading.Thread.Sleep(1);
            Expect(pending.IsReady && pending.Progress == 1.0f, "the asynchronous build ends: progress " + pending.Progress);
            XpbdMeshShapeReport report = pending.Report;
            Expect(report.triangle_count == 12 && report.boundary_edges == 0 && report.non_manifold_edges == 0, "report of the closed box: " + report.triangle_count);
            float px, py, pz;
            Expect(Math.Abs(pending.Distance(0, 0.09f, 0, out px, out py, out pz) + 0.01f) < 2.5e-3f && py > 0.99f, "1 cm inside the top face: -1 cm, normal up");
            early.Dispose();
            pending.Destroy();
            Expect(XpbdLibrary.LiveMeshShapeCount == shapes, "the asynchronous shape destroyed");

            XpbdMeshShape table = world.CreateMeshShape(positions, indices, 0.01f, true);
            float nx, ny, nz;
            // 3 cm above the top face: within the exact band of 4 cells of 1 cm.
            float d = table.Distance(0, 0.13f, 0, out nx, out ny, out nz);
            Expect(Math.Abs(d - 0.03f) < 1e-4f && Math.Abs(ny - 1) < 1e-3f, "distance above the top: " + d);
            XpbdCollider a = world.CreateMeshCollider(table, XpbdPose.Identity);
            XpbdCollider b = world.CreateMeshCollider(table, XpbdPose.At(2, 0, 0), new XpbdColliderContact(0.8f, 0.6f, 1));
            Expect(a.Kind == XpbdColliderKind.Mesh && b.GetDesc().mesh_shape.id == table.Id.id, "instances read back");
            Throws<XpbdInvalidArgumentException>(() => table.Destroy());
            Expect(!table.IsDisposed, "refused: still alive");

            // A cloth laid on the mesh box stays on it.
            float[] cloth = new float[16 * 16 * 3];
            for (int k = 0; k < 256; k++)
            {
                cloth[3 * k] = (k % 16) * 0.04f - 0.3f;
                cloth[3 * k + 1] = 0.12f;
                cloth[3 * k + 2] = (k / 16) * 0.04f - 0.3f;
            }
            var tris = new System.Collections.Generic.List<uint>();
            for (uint j = 0; j < 15; j++)
                for (uint i = 0; i < 15; i++)
                {
                    uint c = j * 16 + i;
                    tris.AddRange(new uint[] { c, c + 16, c + 1, c + 1, c + 16, c + 17 });
                }
            XpbdCloth sheet = world.CreateCloth(cloth, tris.ToArray());
            for (int s = 0; s < 60; s++) world.Step(1.0f / 60.0f);
            float[] after = new float[cloth.Length];
            sheet.ReadPositions(after);
            float lowest = float.MaxValue;
            for (int k = 0; k < 256; k++) lowest = Math.Min(lowest, after[3 * k + 1]);
            Expect(lowest > 0.1f, "the cloth rests on the mesh box: lowest y " + lowest);

            a.Dispose();
            b.Dispose();
            table.Destroy();
            Expect(table.IsDisposed && XpbdLibrary.LiveMeshShapeCount == shapes, "destroyed once unused");
        }
    }

    static void ColliderErrorsMapToTheirExceptions()
    {
        using (var world = new XpbdWorld())
        {
            int live = XpbdLibrary.LiveColliderCount;
            var e1 = Throws<XpbdInvalidArgumentException>(() => world.CreateSphere(-1, XpbdPose.Identity));
            Expect(e1.Message.StartsWith("xpbd_collider_create:") && e1.Message.Contains("radius"), "names the field: " + e1.Message);
            Throws<XpbdInvalidArgumentException>(() => world.CreateBox(0.1f, 0.1f, 0.1f, 0.2f, XpbdPose.Identity)); // rounding > half extent
            Throws<XpbdInvalidArgumentException>(() => world.CreateCapsule(0.1f, float.NaN, XpbdPose.Identity));
            Throws<XpbdInvalidArgumentException>(() => world.CreatePlane(new XpbdPose(0, 0, 0, 0, 0, 0, 2)));
            Throws<XpbdInvalidArgumentException>(() => world.CreateSphere(1, XpbdPose.Identity, new XpbdColliderContact(-0.1f, 0, 1)));
            XpbdColliderDesc unknown = XpbdCollider.DefaultDesc();
            unknown.kind = 7;
            var e2 = Throws<XpbdInvalidArgumentException>(() => world.CreateCollider(unknown));
            Expect(e2.Message.Contains("`kind`"), "names the kind: " + e2.Message);
            Expect(XpbdLibrary.LiveColliderCount == live, "nothing half-created");

            XpbdCollider sphere = world.CreateSphere(0.5f, XpbdPose.At(0, 1, 0));
            var e3 = Throws<XpbdInvalidArgumentException>(() => sphere.SetPose(new XpbdPose(float.NaN, 0, 0, 0, 0, 0, 1)));
            Expect(e3.Message.StartsWith("xpbd_collider_set_pose:"), "set_pose message: " + e3.Message);
            Throws<XpbdInvalidArgumentException>(() => sphere.SetPose(0, 0, 0, 0, 0, 0, 1.01f));
            world.Step(1.0f / 60.0f);
            ExpectPose(sphere.GetPose(), XpbdPose.At(0, 1, 0), 0, "a rejected pose changes nothing");

            // A forged collider id (a cloth's bits: bit 47 differs) and a null one.
            XpbdCloth cloth = SmallCloth(world);
            var forged = new XpbdColliderId { id = cloth.Id.id };
            var e4 = Throws<XpbdInvalidIdException>(() => XpbdLibrary.Check(NativeMethods.xpbd_collider_destroy(forged)));
            Expect(e4.Message.StartsWith("xpbd_collider_destroy:"), "invalid id message: " + e4.Message);
            Throws<XpbdInvalidIdException>(() => XpbdLibrary.Check(NativeMethods.xpbd_collider_destroy(new XpbdColliderId())));
            var forgedCloth = new XpbdClothId { id = sphere.Id.id };
            Throws<XpbdInvalidIdException>(() => XpbdLibrary.Check(NativeMethods.xpbd_cloth_destroy(forgedCloth)));
            Expect(!cloth.IsDisposed && cloth.ParticleCount == 9, "the cloth survived the forged destroy");

            // Destroyed behind the wrapper's back: InvalidId from every call, dispose still harmless.
            Expect(NativeMethods.xpbd_collider_destroy(sphere.Id) == XpbdResult.Ok, "raw destroy");
            var e5 = Throws<XpbdInvalidIdException>(() => sphere.SetPose(XpbdPose.Identity));
            Expect(e5.Message.Contains("xpbd_collider_set_pose"), "names the call: " + e5.Message);
            Throws<XpbdInvalidIdException>(() => sphere.GetDesc());
            sphere.Dispose();
            sphere.Dispose();
            Throws<ObjectDisposedException>(() => sphere.GetPose());
            Throws<ArgumentNullException>(() => new XpbdTrackedCollider(null, XpbdEngineShape.Box(0, 0, 0, 1, 1, 1, 1, 1, 1),
                XpbdAffine.Identity, 0, 0, 0, 1, XpbdColliderContact.Default));
        }
    }

    static ulong[] DrapeHashes(uint threads)
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(12, 12, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc wd = XpbdWorld.DefaultDesc();
        wd.thread_count = threads;
        using (var world = new XpbdWorld(wd))
        {
            // Four cloths (so the threads have work) and a sphere they fall onto.
            world.CreateSphere(0.3f, XpbdPose.At(0.5f, 0.2f, 0.1f));
            var cloths = new XpbdCloth[4];
            for (int c = 0; c < 4; ++c) cloths[c] = world.CreateCloth(positions, indices);
            var hashes = new ulong[4 * 31];
            for (int c = 0; c < 4; ++c) hashes[c] = cloths[c].StateHash();
            for (int frame = 1; frame <= 30; ++frame)
            {
                world.Step(1.0f / 60.0f);
                for (int c = 0; c < 4; ++c) hashes[4 * frame + c] = cloths[c].StateHash();
            }
            return hashes;
        }
    }

    static void StateHashEqualForEqualRuns()
    {
        ulong[] one = DrapeHashes(1), again = DrapeHashes(1), four = DrapeHashes(4);
        for (int k = 0; k < one.Length; ++k)
        {
            Expect(one[k] == again[k], "run to run, hash " + k);
            Expect(one[k] == four[k], "1 vs 4 threads, hash " + k);
        }
        Expect(one[4] != one[0] && one[120] != one[116], "the hash changes as the cloth moves");
        // Before any step the state is the rest positions with zero velocity: FNV-1a over the
        // positions followed by 3 × 144 zero floats, computed here independently.
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(12, 12, 1.0f, 1.0f, out positions, out indices);
        var state = new float[2 * positions.Length];
        Array.Copy(positions, state, positions.Length);
        Expect(one[0] == Fnv1a(state), "hash at rest " + one[0].ToString("x16") + " vs " + Fnv1a(state).ToString("x16"));
    }

    static void ExpectNear(float actual, float expected, float tolerance, string what)
    {
        if (!(Math.Abs(actual - expected) <= tolerance)) throw new Exception(what + ": " + actual + ", expected " + expected);
    }

    // Rotate (vx, vy, vz) by the pose's quaternion: v + 2w(q × v) + 2 q × (q × v).
    static void Rotate(XpbdPose p, float vx, float vy, float vz, out float x, out float y, out float z)
    {
        float tx = 2 * (p.Qy * vz - p.Qz * vy), ty = 2 * (p.Qz * vx - p.Qx * vz), tz = 2 * (p.Qx * vy - p.Qy * vx);
        x = vx + p.Qw * tx + (p.Qy * tz - p.Qz * ty);
        y = vy + p.Qw * ty + (p.Qz * tx - p.Qx * tz);
        z = vz + p.Qw * tz + (p.Qx * ty - p.Qy * tx);
    }

    // Unity's localToWorldMatrix T·R·S for a rotation of `angle` radians about +y.
    static XpbdAffine RotatedAboutY(float angle, float sx, float sy, float sz, float tx, float ty, float tz)
    {
        float c = (float)Math.Cos(angle), s = (float)Math.Sin(angle);
        return new XpbdAffine
        {
            M00 = c * sx, M01 = 0, M02 = s * sz, M03 = tx,
            M10 = 0, M11 = sy, M12 = 0, M13 = ty,
            M20 = -s * sx, M21 = 0, M22 = c * sz, M23 = tz,
        };
    }

    static void EngineShapesFollowUnityConventions()
    {
        // Sphere: radius × the largest |scale|, whatever its sign.
        XpbdEngineShape sphere = XpbdEngineShape.Sphere(0, 0, 0, 0.5f, 1, -3, 2);
        Expect(sphere.Kind == XpbdColliderKind.Sphere && sphere.Radius == 1.5f, "sphere radius " + sphere.Radius);
        // Box: size / 2 × |scale| per axis.
        XpbdEngineShape box = XpbdEngineShape.Box(0, 0, 0, 1, 0.2f, 0.5f, 2, -1, 1);
        Expect(box.HalfX == 1 && box.HalfY == 0.1f && box.HalfZ == 0.25f, "box half extents " + box.HalfX + ", " + box.HalfY + ", " + box.HalfZ);
        // Capsule along X, height 1 (caps included), radius 0.1, scale (2, 1, 3): radius 0.1 × max(1, 3),
        // segment half length 1 × 2 / 2 − 0.3.
        XpbdEngineShape capsule = XpbdEngineShape.Capsule(0.5f, 0, 0, XpbdAxis.X, 1, 0.1f, 2, 1, 3);
        ExpectNear(capsule.Radius, 0.3f, 1e-7f, "capsule radius");
        ExpectNear(capsule.HalfHeight, 0.7f, 1e-7f, "capsule half height");
        Expect(XpbdEngineShape.Capsule(0, 0, 0, XpbdAxis.Y, 0.1f, 0.1f, 1, 1, 1).HalfHeight == 0, "shorter than two radii: a sphere");
        Expect(XpbdEngineShape.Capsule(0, 0, 0, XpbdAxis.Z, 2, 0.5f, 4, 1, 1).Radius == 2, "Z capsule radius from the larger of x and y");
        Throws<ArgumentOutOfRangeException>(() => XpbdEngineShape.Capsule(0, 0, 0, (XpbdAxis)3, 1, 0.1f, 1, 1, 1));

        // Pose: the object turned a quarter about +y (Unity: rotation (0, sin 45°, 0, cos 45°)),
        // scaled (2, 1, 3), at (1, 2, 3). The centre (0.5, 0, 0) scales to (1, 0, 0), turns to
        // (0, 0, −1): world (1, 2, 2). The capsule's local X axis turns to −z.
        float angle = (float)(Math.PI / 2), qy = (float)Math.Sin(angle / 2), qw = (float)Math.Cos(angle / 2);
        XpbdAffine toWorld = RotatedAboutY(angle, 2, 1, 3, 1, 2, 3);
        XpbdPose pose = capsule.WorldPose(toWorld, 0, qy, 0, qw);
        ExpectNear(pose.X, 1, 1e-6f, "centre x");
        ExpectNear(pose.Y, 2, 1e-6f, "centre y");
        ExpectNear(pose.Z, 2, 1e-6f, "centre z");
        float ax, ay, az;
        Rotate(pose, 0, 1, 0, out ax, out ay, out az); // the library's capsule axis in the world
        Expect(Math.Abs(ax) < 1e-6f && Math.Abs(ay) < 1e-6f && Math.Abs(Math.Abs(az) - 1) < 1e-6f, "axis along z: " + ax + ", " + ay + ", " + az);
        // Each axis rotation turns +y onto its axis; Y's is the identity.
        foreach (XpbdAxis axis in new[] { XpbdAxis.X, XpbdAxis.Y, XpbdAxis.Z })
        {
            var p = new XpbdPose { Qw = 1 };
            XpbdEngineShape.AxisRotation(axis, out p.Qx, out p.Qy, out p.Qz, out p.Qw);
            float rx, ry, rz;
            Rotate(p, 0, 1, 0, out rx, out ry, out rz);
            float[] expected = { axis == XpbdAxis.X ? 1 : 0, axis == XpbdAxis.Y ? 1 : 0, axis == XpbdAxis.Z ? 1 : 0 };
            Expect(Math.Abs(rx - expected[0]) < 1e-6f && Math.Abs(ry - expected[1]) < 1e-6f && Math.Abs(rz - expected[2]) < 1e-6f,
                axis + " axis: " + rx + ", " + ry + ", " + rz);
        }

        // Through the library: the capsule's descriptor reads back with these numbers, and its
        // end caps are where the engine's are: centre ± 0.7 m along the turned X axis.
        using (var world = new XpbdWorld())
        {
            var tracked = new XpbdTrackedCollider(world, capsule, toWorld, 0, qy, 0, qw, new XpbdColliderContact(0.6f, 0.6f, 1u << 8));
            XpbdColliderDesc d = tracked.Collider.GetDesc();
            Expect(d.kind == (uint)XpbdColliderKind.Capsule && d.radius == capsule.Radius && d.half_height == capsule.HalfHeight, "capsule desc");
            Expect(d.static_friction == 0.6f && d.layers == 256, "contact");
            XpbdPose created = tracked.Collider.GetPose();
            ExpectPose(created, pose, 1e-6f, "created at the engine pose");
            XpbdColliderDesc b = world.CreateCollider(box.ToDesc(XpbdPose.Identity, XpbdColliderContact.Default)).GetDesc();
            Expect(b.kind == (uint)XpbdColliderKind.Box && b.half_extents[0] == 1 && b.half_extents[1] == 0.1f && b.half_extents[2] == 0.25f && b.radius == 0, "box desc");
            tracked.Dispose();
            tracked.Dispose();
        }
    }

    // A Unity-style box collider (size 1 × 0.2 × 1 on an object scaled (1, 1, 1)) moved by its
    // object at 1 m/s along x: Follow before each step; the cloth lying on it moves with it.
    static void TrackedColliderFollowsItsObject()
    {
        float[] local;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 0.6f, 0.6f, out local, out indices);
        // The grid lies in the x-y plane; turn it flat (y → -z) and lift it onto the box top.
        float thickness = XpbdCloth.DefaultDesc().collision_thickness;
        var flatToWorld = new XpbdAffine { M00 = 1, M03 = -0.3f, M12 = 1, M13 = 0.1f + thickness, M21 = -1, M23 = 0.3f };
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var sim = new XpbdClothSimulation(local, indices, flatToWorld, XpbdCloth.DefaultDesc(), single))
        {
            XpbdEngineShape shape = XpbdEngineShape.Box(0, 0, 0, 1, 0.2f, 1, 1, 1, 1);
            XpbdTrackedCollider box = sim.AddCollider(shape, XpbdAffine.Identity, 0, 0, 0, 1, new XpbdColliderContact(0.8f, 0.6f, 1));
            for (int frame = 0; frame < 30; ++frame) sim.Step(1.0f / 60.0f); // settle
            var before = new float[local.Length];
            sim.Cloth.ReadPositions(before);
            float x = 0;
            for (int frame = 1; frame <= 60; ++frame)
            {
                // Accelerate at 4 m/s² to 1 m/s (below μ_s·g), then hold.
                float t = frame / 60.0f;
                x = t < 0.25f ? 2 * t * t : t - 0.125f;
                box.Follow(XpbdAffine.Translation(x, 0, 0), 0, 0, 0, 1);
                sim.Step(1.0f / 60.0f);
            }
            var after = new float[local.Length];
            sim.Cloth.ReadPositions(after);
            double moved = 0;
            for (int v = 0; v < local.Length / 3; ++v) moved += after[3 * v] - before[3 * v];
            moved /= local.Length / 3;
            ExpectPose(box.Collider.GetPose(), XpbdPose.At(x, 0, 0), 0, "the box reached its last pose");
            Expect(Math.Abs(moved - x) < 0.02, "the cloth moved " + moved + " m with the box's " + x + " m");
            sim.Dispose();
            Expect(box.Collider.IsDisposed, "disposed with the simulation");
        }
    }

    // ---- Robustness (docs/robustness.md) ----

    static void EngineSettingsReachTheClothParams()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(4, 4, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        {
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            XpbdClothSettings.SetSelfCollision(ref desc, true, 0.125f, 0.7f, 0.3f);
            XpbdClothSettings.SetRobustness(ref desc, 0.25f, 40.0f, XpbdUnstableRecovery.RestPose);
            using (XpbdCloth cloth = world.CreateCloth(positions, indices, null, desc))
            {
                XpbdClothParams p = cloth.GetParams();
                Expect(p.enable_self_collision == 1 && p.self_collision_radius == 0.125f, "self-collision on, r = 0.125 m");
                Expect(p.self_static_friction == 0.7f && p.self_kinetic_friction == 0.3f, "self friction 0.7 / 0.3");
                Expect(p.inertia_scale == 0.25f && p.max_particle_speed == 40.0f, "inertia scale 0.25, v_max 40 m/s");
                Expect(p.unstable_recovery == 1, "rest pose recovery is C value 1, got " + p.unstable_recovery);
                Expect(p.enable_inter_cloth_collision == 0, "inter-cloth collision left at its default");
            }

            // Off and radius 0 (= collision thickness) are the library's defaults.
            XpbdClothDesc defaults = XpbdCloth.DefaultDesc();
            XpbdClothDesc off = defaults;
            XpbdClothSettings.SetSelfCollision(ref off, false, 0.0f, defaults.self_static_friction, defaults.self_kinetic_friction);
            XpbdClothSettings.SetRobustness(ref off, 1.0f, defaults.max_particle_speed, XpbdUnstableRecovery.LastGoodState);
            Expect(off.enable_self_collision == defaults.enable_self_collision && off.self_collision_radius == defaults.self_collision_radius
                && off.inertia_scale == defaults.inertia_scale && off.unstable_recovery == defaults.unstable_recovery,
                "off, r = 0, s = 1 and last good state are the library's defaults");

            XpbdClothDesc bad = XpbdCloth.DefaultDesc();
            XpbdClothSettings.SetRobustness(ref bad, 1.5f, 100.0f, XpbdUnstableRecovery.LastGoodState);
            var e = Throws<XpbdInvalidArgumentException>(() => world.CreateCloth(positions, indices, null, bad));
            Expect(e.Message.Contains("inertia_scale"), "names the field: " + e.Message);
        }
    }

    // Issue 31 through the C# wrapper: the top row kinematic (max distance 0) reads back exactly
    // on a pose moving at 10 m/s, every other vertex within its 5 cm + 1e-5 m; bad arrays throw
    // their exceptions; a collider teleport jumps at once; a skin with identity joints holds the
    // bind pose bit for bit.
    static void CharacterClothFollowsItsPose()
    {
        float[] rest;
        uint[] indices;
        XpbdGridMesh.Create(10, 10, 1.0f, 1.0f, out rest, out indices);
        int n = rest.Length / 3;
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        using (XpbdCloth cloth = world.CreateCloth(rest, indices))
        {
            var d = new float[n];
            for (int i = 0; i < n; ++i) d[i] = i < 10 ? 0.0f : 0.05f;
            cloth.SetMaxDistances(d);
            Throws<XpbdBufferSizeMismatchException>(() => cloth.SetMaxDistances(new float[n - 1]));
            var negative = new float[n];
            negative[3] = -1;
            Throws<XpbdInvalidArgumentException>(() => cloth.SetMaxDistances(negative));
            var pose = new float[3 * n];
            var x = new float[3 * n];
            float worst = 0, kinematic = 0;
            for (int step = 1; step <= 60; ++step)
            {
                for (int k = 0; k < 3 * n; ++k) pose[k] = rest[k] + (k % 3 == 0 ? 10.0f * step / 60.0f : 0.0f);
                cloth.SetAnimatedPose(pose, null);
                world.Step(1.0f / 60.0f);
                cloth.ReadPositions(x);
                for (int i = 0; i < n; ++i)
                {
                    float dx = x[3 * i] - pose[3 * i], dy = x[3 * i + 1] - pose[3 * i + 1], dz = x[3 * i + 2] - pose[3 * i + 2];
                    float dist = (float)Math.Sqrt(dx * dx + dy * dy + dz * dz);
                    if (i < 10) kinematic = Math.Max(kinematic, dist); else worst = Math.Max(worst, dist);
                }
            }
            Console.WriteLine("  character: kinematic row " + kinematic + " m from the pose, others at most " + worst + " m");
            Console.WriteLine("character bits: positions-fnv1a " + Fnv1a(x).ToString("x16") + " state-hash " + cloth.StateHash().ToString("x16"));
            Expect(kinematic == 0, "the kinematic row on the pose");
            Expect(worst <= 0.05f + 1e-5f, "max distance held: " + worst);
            var animated = new float[3 * n];
            cloth.ReadAnimatedPositions(animated);
            ExpectSameBits(animated, pose, "animated pose read back");

            var weights = new float[4 * n];
            var joints = new uint[4 * n];
            for (int i = 0; i < n; ++i) weights[4 * i] = 1;
            var identity = new float[] { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
            cloth.SetSkin(identity, joints, weights);
            cloth.SetMaxDistances(new float[n]);
            cloth.SetJointMatrices(identity);
            world.Step(1.0f / 60.0f);
            cloth.ReadPositions(x);
            ExpectSameBits(x, rest, "skinned at the bind pose");
            Throws<XpbdBufferSizeMismatchException>(() => cloth.SetJointMatrices(new float[15]));
            // A joint beyond +-1e5 m or sheared is rejected naming the joint; the pose stays.
            var far = (float[])identity.Clone();
            far[12] = 1e9f;
            var sheared = (float[])identity.Clone();
            sheared[4] = 0.5f;
            string farMessage = Throws<XpbdInvalidArgumentException>(() => cloth.SetJointMatrices(far)).Message;
            string shearMessage = Throws<XpbdInvalidArgumentException>(() => cloth.SetJointMatrices(sheared)).Message;
            Expect(farMessage.Contains("position 0") && farMessage.Contains("1e5"), farMessage);
            Expect(shearMessage.Contains("position 0") && shearMessage.Contains("shear"), shearMessage);
            cloth.ReadAnimatedPositions(animated);
            ExpectSameBits(animated, rest, "the skinned pose unchanged by rejected matrices");
        }
        using (var world = new XpbdWorld(single))
        {
            XpbdColliderDesc desc = XpbdCollider.DefaultDesc();
            desc.radius = 0.1f;
            using (XpbdCollider ball = world.CreateCollider(desc))
            {
                ball.Teleport(XpbdPose.At(50, 0, 0));
                XpbdPose p = ball.GetPose();
                Expect(p.X == 50 && p.Qw == 1, "teleported at once");
                Throws<XpbdInvalidArgumentException>(() => ball.Teleport(XpbdPose.At(float.NaN, 0, 0)));
            }
        }
    }

    static void SnapshotsTeleportAndGuard()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        using (XpbdCloth wild = world.CreateCloth(positions, indices))
        {
            cloth.SetPinned(new uint[] { 0, 7 });
            for (int frame = 0; frame < 20; ++frame) world.Step(1.0f / 60.0f);

            // Snapshot: restore then step is bitwise the same run (the free `wild` cloth falls on).
            byte[] snapshot = cloth.SaveState();
            Expect(snapshot.Length == cloth.StateSize && snapshot.Length == 48 + 24 * 64 + 28 * 2 + 40, "snapshot size " + snapshot.Length);
            var first = new ulong[10];
            for (int k = 0; k < 10; ++k) { world.Step(1.0f / 60.0f); first[k] = cloth.StateHash(); }
            cloth.RestoreState(snapshot);
            for (int k = 0; k < 10; ++k)
            {
                world.Step(1.0f / 60.0f);
                Expect(cloth.StateHash() == first[k], "same hash " + k + " steps after the restore");
            }
            ulong hash = cloth.StateHash();
            snapshot[60] ^= 1;
            Throws<XpbdInvalidSnapshotException>(() => cloth.RestoreState(snapshot));
            Throws<XpbdBufferSizeMismatchException>(() => cloth.SaveState(new byte[10]));
            Expect(cloth.StateHash() == hash, "a rejected snapshot changes nothing");

            // Teleport: 100 m along x, no rotation; a non-unit quaternion is rejected.
            var before = new float[3 * 64];
            var after = new float[3 * 64];
            cloth.ReadPositions(before);
            Throws<XpbdInvalidArgumentException>(() => cloth.Teleport(1, 0, 0, 0, 0, 0, 2));
            cloth.Teleport(100, 0, 0, 0, 0, 0, 1);
            cloth.ReadPositions(after);
            Expect(Math.Abs(after[0] - before[0] - 100) < 1e-4 && after[1] == before[1], "moved 100 m along x");

            // Explosion guard: an absurd acceleration on the free cloth; the step still counts.
            XpbdClothParams p = wild.GetParams();
            p.external_acceleration[1] = 1.0e6f;
            wild.SetParams(p);
            long steps = world.StepCount;
            var e = Throws<XpbdSimulationUnstableException>(() => world.Step(1.0f / 60.0f));
            Expect(e.Message.StartsWith("xpbd_world_step: cloth 0x"), "message names the cloth: " + e.Message);
            Expect(world.StepCount == steps + 1, "the unstable step is counted");
            XpbdClothStatus status = wild.TakeStatus();
            Expect(status.unstable_steps == 1 && status.kind == (uint)XpbdInstabilityKind.DisplacementBound, "status of the wild cloth");
            Expect(wild.TakeStatus().unstable_steps == 0 && cloth.TakeStatus().unstable_steps == 0, "status cleared; the other cloth fine");
        }
    }

    // ---- The frame loop ----

    static void FrameLoopAdvanceInterpolateWrite()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc desc = XpbdWorld.DefaultDesc();
        desc.thread_count = 1;
        desc.Gravity = new XpbdVector3(0, -9.81f, 0);
        using (var world = new XpbdWorld(desc))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        {
            cloth.SetPinned(new uint[] { 0, 7 });
            XpbdClothParams p = cloth.GetParams();
            p.WindVelocity = new XpbdVector3(0, 0, 3);
            p.drag_coefficient = 1;
            cloth.SetParams(p);
            Expect(cloth.GetParams().WindVelocity.z == 3, "wind set through the safe property");
            float[] frames = { 0.007f, 0.016f, 0.033f };
            double total = 0;
            int steps = 0;
            var a0 = new float[3 * 64];
            var a1 = new float[3 * 64];
            var at = new float[3 * 64];
            int checkedFrames = 0;
            for (int frame = 0; total < 2.0; ++frame)
            {
                float dt = frames[frame % 3];
                total += dt;
                XpbdAdvance r = world.Advance(dt, 1.0f / 60.0f, 8);
                Expect(r.Alpha >= 0 && r.Alpha < 1 && !r.Recovered && r.DroppedTime == 0, "alpha " + r.Alpha);
                steps += r.Steps;
                if (r.Steps == 0 || r.Alpha == 0) continue;
                cloth.ReadPositionsInterpolated(0, a0);
                cloth.ReadPositionsInterpolated(1, a1);
                cloth.ReadPositionsInterpolated(r.Alpha, at);
                for (int i = 0; i < a0.Length; ++i)
                {
                    // Every intermediate cast to float: the CLR may otherwise keep double precision.
                    float oneMinus = (float)(1 - r.Alpha);
                    int v0 = i - i % 3; // the library keeps a vertex whose two states are equal as it is
                    bool still = a0[v0] == a1[v0] && a0[v0 + 1] == a1[v0 + 1] && a0[v0 + 2] == a1[v0 + 2];
                    float expected = still ? a1[i] : (float)((float)(a0[i] * oneMinus) + (float)(a1[i] * r.Alpha));
                    if (Bits(at[i]) != Bits(expected)) { Expect(false, "float " + i + " is not the lerp"); return; }
                }
                ++checkedFrames;
            }
            long floor = (long)Math.Floor(total / (1.0f / 60.0f));
            Expect(Math.Abs(steps - floor) <= 1, steps + " steps for " + total + " s");
            Expect(checkedFrames > 50, "checked " + checkedFrames + " frames");
            Console.WriteLine("frame loop: " + steps + " steps for " + total.ToString("F3") + " s (floor " + floor + ")");

            // Interleaved vertex buffer: positions and normals land, the UVs stay.
            const float alpha = 0.3f;
            var normals = new float[3 * 64];
            cloth.ReadPositionsInterpolated(alpha, at);
            cloth.ReadNormalsInterpolated(alpha, normals);
            using (var vertices = new XpbdPinnedArray<Vertex32>(64))
            {
                for (int v = 0; v < 64; ++v) { vertices.Array[v].u = 7; vertices.Array[v].v = -7; }
                cloth.WriteVertices(vertices, 32, 0, 12, alpha);
                for (int v = 0; v < 64; ++v)
                {
                    Vertex32 x = vertices.Array[v];
                    Expect(Bits(x.px) == Bits(at[3 * v]) && Bits(x.py) == Bits(at[3 * v + 1]) && Bits(x.pz) == Bits(at[3 * v + 2]), "position " + v);
                    Expect(Bits(x.nx) == Bits(normals[3 * v]) && Bits(x.nz) == Bits(normals[3 * v + 2]), "normal " + v);
                    Expect(x.u == 7 && x.v == -7, "uv untouched " + v);
                }
                Throws<XpbdInvalidArgumentException>(() => cloth.WriteVertices(vertices, 32, 0, 8, alpha));
                Throws<XpbdBufferSizeMismatchException>(() => cloth.WriteVertices(vertices, 40, 0, 12, alpha));
            }
            XpbdVector3 lo, hi;
            cloth.GetBounds(out lo, out hi);
            Expect(lo.x <= at[0] && hi.x >= at[21] && hi.x - lo.x > 0.9f, "bounds " + lo + " " + hi);

            // Particle writes: a vertex put somewhere reads back there; bad input throws, changes nothing.
            cloth.SetPositions(new uint[] { 63 }, new float[] { 2, 3, 4 });
            cloth.ReadPositions(at);
            Expect(at[189] == 2 && at[190] == 3 && at[191] == 4, "vertex 63 where it was put");
            ulong hash = cloth.StateHash();
            Throws<XpbdInvalidArgumentException>(() => cloth.SetPositions(new uint[] { 64 }, new float[] { 0, 0, 0 }));
            Throws<XpbdInvalidArgumentException>(() => cloth.SetVelocities(new uint[] { 1 }, new float[] { float.NaN, 0, 0 }));
            Throws<XpbdBufferSizeMismatchException>(() => cloth.SetVelocities(new uint[] { 1, 2 }, new float[] { 0, 0, 0 }));
            Expect(cloth.StateHash() == hash, "rejected writes change nothing");
            cloth.SetVelocities(null, new float[3 * 64]);

            Expect(!cloth.IsSleeping, "sleeping is off by default");
            cloth.Wake();

            // An instance continues exactly as its source and outlives it.
            using (XpbdCloth twin = cloth.CreateInstance())
            {
                Expect(twin.StateHash() == cloth.StateHash() && twin.VertexCount == 64, "the instance starts as its source");
                world.Step(1.0f / 60.0f);
                Expect(twin.StateHash() == cloth.StateHash(), "and steps as it does");
                cloth.Dispose();
                world.Step(1.0f / 60.0f);
                twin.ReadPositions(at);
                Expect(!float.IsNaN(at[0]), "the instance outlives its source");
            }
        }
    }

    static void FrameLoopAllocatesNothingAndReportsRecovery()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        using (XpbdCloth wild = world.CreateCloth(positions, indices))
        using (var vertices = new XpbdPinnedArray<Vertex32>(64))
        using (var packed = new XpbdPinnedArray<Vec3>(64))
        {
            cloth.SetPinned(new uint[] { 0, 7 });
            var frame = new Action<int>(k =>
            {
                XpbdAdvance r = world.Advance(k % 2 == 0 ? 0.011f : 0.023f, 1.0f / 60.0f, 4);
                cloth.WriteVertices(vertices, 32, 0, 12, r.Alpha);
                cloth.ReadPositionsInterpolated(r.Alpha, packed);
                XpbdVector3 lo, hi;
                cloth.GetBounds(out lo, out hi);
                world.TryStep(1.0f / 60.0f);
                world.StepBegin(1.0f / 60.0f);
                cloth.WriteVertices(vertices, 32, 0, 12, r.Alpha);
                world.TryStepEnd();
            });
            for (int k = 0; k < 10; ++k) frame(k); // JIT and first-call costs
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int k = 10; k < 110; ++k) frame(k);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Expect(allocated == 0, "no managed allocation in 100 frames of the frame loop, saw " + allocated + " bytes");

            // A recovered cloth: reported by TryStep and Advance, no exception; misuse still throws.
            XpbdClothParams p = wild.GetParams();
            p.ExternalAcceleration = new XpbdVector3(0, 1.0e6f, 0);
            wild.SetParams(p);
            long steps = world.StepCount;
            Expect(!world.TryStep(1.0f / 60.0f), "TryStep reports the recovered cloth");
            Expect(world.StepCount == steps + 1, "the step counted");
            Expect(wild.TakeStatus().unstable_steps == 1, "status of the recovered cloth");
            XpbdAdvance a = world.Advance(0.02f, 1.0f / 60.0f, 4);
            Expect(a.Recovered && a.Steps == 1, "Advance reports it: " + a.Steps + " steps");
            p.ExternalAcceleration = new XpbdVector3(0, 0, 0);
            wild.SetParams(p);
            Expect(world.TryStep(1.0f / 60.0f), "a good step");
            Throws<XpbdInvalidArgumentException>(() => world.TryStep(-1));
            Throws<XpbdInvalidArgumentException>(() => world.Advance(float.NaN, 1.0f / 60.0f, 4));
            Throws<XpbdInvalidArgumentException>(() => world.Advance(0.02f, 1.0f / 60.0f, 0));
            Throws<XpbdInvalidArgumentException>(() => world.Advance(0.02f, 1.0f / 60.0f, -1));
            Throws<XpbdInvalidArgumentException>(() => world.Step(1e-6f));
        }
    }

    // A step begun with StepBegin: the reads until StepEnd are bitwise the ones before it (the
    // library keeps that state for them, so this holds whether or not the step has finished), and
    // StepEnd leaves the state Step leaves on a twin world. Calls in the wrong order throw their
    // exceptions and change nothing.
    static void AsyncStepReadsTheStateAtBeginAndEndsLikeStep()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(32, 32, 1.0f, 1.0f, out positions, out indices);
        int n = positions.Length / 3;
        XpbdWorldDesc desc = XpbdWorld.DefaultDesc();
        desc.thread_count = 2;
        using (var world = new XpbdWorld(desc))
        using (var twinWorld = new XpbdWorld(desc))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        using (XpbdCloth twin = twinWorld.CreateCloth(positions, indices))
        {
            cloth.SetPinned(new uint[] { 0, 31 });
            twin.SetPinned(new uint[] { 0, 31 });
            for (int k = 0; k < 2; ++k)
            {
                world.Step(1.0f / 60.0f);
                twinWorld.Step(1.0f / 60.0f);
            }
            float[] before = new float[3 * n], normalsBefore = new float[3 * n], read = new float[3 * n];
            cloth.ReadPositions(before);
            cloth.ReadNormals(normalsBefore);
            long steps = world.StepCount;
            world.StepBegin(1.0f / 60.0f);
            cloth.ReadPositions(read);
            Expect(BitsEqual(read, before), "positions read after StepBegin are the state at StepBegin");
            cloth.ReadNormals(read);
            Expect(BitsEqual(read, normalsBefore), "normals read after StepBegin are the state at StepBegin");
            Throws<XpbdStepInProgressException>(() => world.StepBegin(1.0f / 60.0f));
            Throws<XpbdStepInProgressException>(() => world.Step(1.0f / 60.0f));
            Expect(world.TryStepEnd(), "TryStepEnd: a good step");
            Expect(world.StepCount == steps + 1, "the async step counted once");
            twinWorld.Step(1.0f / 60.0f);
            float[] after = new float[3 * n], twinAfter = new float[3 * n];
            cloth.ReadPositions(after);
            twin.ReadPositions(twinAfter);
            Expect(BitsEqual(after, twinAfter), "StepEnd leaves what Step leaves");
            Expect(cloth.StateHash() == twin.StateHash(), "same state hash as the twin stepped with Step");
            Expect(!BitsEqual(after, before), "the step moved the cloth");
            var e = Throws<XpbdStepNotBegunException>(() => world.StepEnd());
            Expect(e.Message.StartsWith("xpbd_world_step_end:"), "message: " + e.Message);
            Throws<XpbdInvalidArgumentException>(() => world.StepBegin(0.0f));
            Throws<XpbdStepNotBegunException>(() => world.StepEnd());
            Expect(cloth.StateHash() == twin.StateHash() && world.StepCount == steps + 1, "refused calls changed nothing");
        }
    }

    // The render-overlap loop: AdvanceBegin, reads of the state it began from, AdvanceEnd, over
    // frames of 7, 16 and 33 ms with a pin target moved each frame, gives the steps, alpha and
    // state Advance gives on a twin world; wrong orders throw their exceptions.
    static void AdvanceBeginAndEndGiveWhatAdvanceGives()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(24, 24, 1.0f, 1.0f, out positions, out indices);
        int n = positions.Length / 3;
        XpbdWorldDesc desc = XpbdWorld.DefaultDesc();
        desc.thread_count = 2;
        using (var world = new XpbdWorld(desc))
        using (var twinWorld = new XpbdWorld(desc))
        using (XpbdCloth cloth = world.CreateCloth(positions, indices))
        using (XpbdCloth twin = twinWorld.CreateCloth(positions, indices))
        {
            cloth.SetPinned(new uint[] { 0, 23 });
            twin.SetPinned(new uint[] { 0, 23 });
            float[] frames = { 0.007f, 0.016f, 0.033f };
            float[] before = new float[3 * n], read = new float[3 * n], twinRead = new float[3 * n];
            for (int k = 0; k < 9; ++k)
            {
                float[] target = { positions[0] + 0.02f * k, positions[1], positions[2] };
                cloth.SetPinTargets(new uint[] { 0 }, target);
                twin.SetPinTargets(new uint[] { 0 }, target);
                cloth.ReadPositions(before);
                world.AdvanceBegin(frames[k % 3], 1.0f / 60.0f, 4);
                cloth.ReadPositions(read);
                Expect(BitsEqual(read, before), "reads during the advance are the state at AdvanceBegin");
                Throws<XpbdStepInProgressException>(() => world.AdvanceBegin(0.01f, 1.0f / 60.0f, 4));
                XpbdAdvance a = world.AdvanceEnd();
                XpbdAdvance b = twinWorld.Advance(frames[k % 3], 1.0f / 60.0f, 4);
                Expect(a.Steps == b.Steps && Bits(a.Alpha) == Bits(b.Alpha), "frame " + k + ": steps and alpha as Advance's");
                cloth.ReadPositions(read);
                twin.ReadPositions(twinRead);
                Expect(BitsEqual(read, twinRead) && cloth.StateHash() == twin.StateHash(), "frame " + k + ": the state Advance leaves");
            }
            Throws<XpbdStepNotBegunException>(() => world.AdvanceEnd());
            Throws<XpbdInvalidArgumentException>(() => world.AdvanceBegin(-1.0f, 1.0f / 60.0f, 4));
            Throws<XpbdInvalidArgumentException>(() => world.AdvanceBegin(0.01f, 1.0f / 60.0f, 0));
            world.StepBegin(1.0f / 60.0f);
            Throws<XpbdStepNotBegunException>(() => world.AdvanceEnd());
            world.StepEnd();
        }
    }

    // A soft grab pulls its vertex to within 2 cm of a target dragged 15 cm away; release and a
    // second release, bad vertices, NaN targets, bad stiffness and a destroyed cloth throw their
    // exceptions and change nothing.
    static void GrabFollowsItsTargetAndRefusesBadInput()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(16, 16, 1.0f, 1.0f, out positions, out indices);
        int n = positions.Length / 3;
        using (var world = new XpbdWorld())
        {
            XpbdCloth cloth = world.CreateCloth(positions, indices);
            cloth.SetPinned(new uint[] { 0, 15 });
            for (int k = 0; k < 30; ++k) world.Step(1.0f / 60.0f);
            uint v = (uint)(n / 2 + 8);
            float[] at = new float[3 * n];
            cloth.ReadPositions(at);
            float x = at[3 * v], y = at[3 * v + 1], z = at[3 * v + 2];
            // Dragged 15 cm towards the middle of the pinned corners: within the cloth's reach.
            float mx = 0.5f * (at[0] + at[45]) - x, my = 0.5f * (at[1] + at[46]) - y, mz = 0.5f * (at[2] + at[47]) - z;
            float length = (float)Math.Sqrt(mx * mx + my * my + mz * mz);
            float dx = 0.15f * mx / length, dy = 0.15f * my / length, dz = 0.15f * mz / length;
            cloth.Grab(v, x, y, z, 1000.0f);
            for (int k = 1; k <= 60; ++k)
            {
                float s = Math.Min(1.0f, k / 30.0f);
                cloth.GrabMove(v, x + s * dx, y + s * dy, z + s * dz);
                world.Step(1.0f / 60.0f);
            }
            cloth.ReadPositions(at);
            float ex = at[3 * v] - x - dx, ey = at[3 * v + 1] - y - dy, ez = at[3 * v + 2] - z - dz;
            float gap = (float)Math.Sqrt(ex * ex + ey * ey + ez * ez);
            Expect(gap < 0.02f, "the grabbed vertex within 2 cm of its target, at " + gap + " m");
            ulong hash = cloth.StateHash();
            Throws<XpbdInvalidArgumentException>(() => cloth.Grab((uint)n, 0, 0, 0, 1000.0f));
            Throws<XpbdInvalidArgumentException>(() => cloth.Grab(v, float.NaN, 0, 0, 1000.0f));
            Throws<XpbdInvalidArgumentException>(() => cloth.Grab(v, 0, 0, 0, 0.0f));
            Throws<XpbdInvalidArgumentException>(() => cloth.GrabMove(v, 0, float.PositiveInfinity, 0));
            Throws<XpbdNotGrabbedException>(() => cloth.GrabMove(1, 0, 0, 0));
            Expect(cloth.StateHash() == hash, "refused calls changed nothing");
            cloth.Release(v);
            var e = Throws<XpbdNotGrabbedException>(() => cloth.Release(v));
            Expect(e.Message.StartsWith("xpbd_cloth_release:"), "message: " + e.Message);
            cloth.Dispose();
            Throws<ObjectDisposedException>(() => cloth.Release(v));
        }
    }

    static bool BitsEqual(float[] a, float[] b)
    {
        if (a.Length != b.Length) return false;
        for (int i = 0; i < a.Length; ++i)
        {
            float x = a[i], y = b[i];
            if (*(int*)&x != *(int*)&y) return false;
        }
        return true;
    }

    static void PinnedArraysRefuseReferences()
    {
        Throws<ArgumentException>(() => new XpbdPinnedArray<HoldsReference>(4));
        var e = Throws<ArgumentException>(() => new XpbdPinnedArray<NestsReference>(4));
        Expect(e.Message.Contains("NestsReference.inner.tag"), "names the field: " + e.Message);
        using (var ok = new XpbdPinnedArray<Vertex32>(4)) Expect(ok.ElementSize == 32, "an unmanaged struct is fine");
    }

    // ---- Tearing and pressure ----

    static void TornClothFollowedThroughTheTornMesh()
    {
        float[] positions;
        uint[] indices;
        XpbdGridMesh.Create(8, 8, 1.0f, 1.0f, out positions, out indices);
        XpbdWorldDesc single = XpbdWorld.DefaultDesc();
        single.thread_count = 1;
        using (var world = new XpbdWorld(single))
        {
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            XpbdClothSettings.SetTearing(ref desc, true, 64, 12, 0.3f);
            Expect(desc.max_extra_vertices == 12 && desc.tear_strain == 0.3f, "tearing settings");
            XpbdCloth cloth = world.CreateCloth(positions, indices, null, desc);
            Expect(cloth.MaxExtraVertices == 12 && cloth.VertexCount == 64, "created with 64 vertices and 12 in reserve");
            cloth.SetPinned(new uint[] { 0, 7 });
            var mesh = new XpbdTornMesh(cloth);
            Expect(mesh.Update() && mesh.VertexCount == 64 && mesh.TopologyVersion == 0, "the first update reads the mesh as created");
            Expect(!mesh.Update(), "nothing changed");
            // A cut along row 3: one vertex copied per vertex of the row.
            for (uint i = 0; i < 7; ++i) Expect(cloth.Tear(24 + i, 25 + i), "edge " + i + " cut");
            Expect(!cloth.Tear(24, 25), "cutting a cut edge changes nothing");
            Expect(cloth.VertexCount == 72 && cloth.RenderCounts.TopologyVersion == 7, "8 new vertices, 7 cuts: " + cloth.VertexCount);
            Expect(mesh.Update() && mesh.VertexCount == 72, "the torn mesh read");
            for (int k = 0; k < indices.Length; ++k)
            {
                Expect(mesh.Sources[mesh.Indices[k]] == indices[k], "corner " + k + " descends from its vertex as created");
            }
            var uv = new float[64];
            for (int v = 0; v < 64; ++v) uv[v] = 0.5f * v;
            var copied = new float[mesh.MaxVertexCount];
            XpbdTornMesh.CopyBySource(uv, mesh.Sources, mesh.VertexCount, copied);
            Expect(copied[70] == uv[mesh.Sources[70]] && mesh.Sources[70] < 64, "a new vertex takes its source's UV");
            // Reads take the new count; the old one is refused.
            cloth.ReadPositions(new float[3 * 72]);
            Throws<XpbdBufferSizeMismatchException>(() => cloth.ReadPositions(new float[3 * 64]));
            // Bad cuts: out of range, not an edge, out of reserve.
            Throws<XpbdInvalidArgumentException>(() => cloth.Tear(0, 500));
            Throws<XpbdInvalidArgumentException>(() => cloth.Tear(0, 9));
            // Four more vertices are left: a cut along row 6 copies one per vertex it passes.
            for (uint i = 0; i < 4; ++i) cloth.Tear(48 + i, 49 + i);
            var e = Throws<XpbdCapacityExceededException>(() => cloth.Tear(52, 53));
            Expect(e.Message.Contains("max_extra_vertices"), "the message names the reserve: " + e.Message);
            // A snapshot of the torn cloth grows with its cuts and restores its mesh.
            Expect(mesh.Update() && mesh.VertexCount == 76, "the four cuts read");
            byte[] snapshot = cloth.SaveState();
            Expect(snapshot.Length == 48 + 24 * 76 + 28 * 2 + 40 + 8 * 11, "snapshot size " + snapshot.Length);
            for (int frame = 0; frame < 10; ++frame) world.Step(1.0f / 60.0f);
            cloth.RestoreState(snapshot);
            Expect(!mesh.Update() && cloth.VertexCount == 76, "the same cuts: the same mesh");
            // A cloth that cannot tear.
            XpbdCloth plain = world.CreateCloth(positions, indices);
            Expect(plain.MaxExtraVertices == 0, "no reserve");
            Throws<XpbdInvalidArgumentException>(() => plain.Tear(0, 1));
        }
    }

    static void PressureOnClosedAndOpenCloth()
    {
        float[] octahedron = { 1, 2, 0, -1, 2, 0, 0, 3, 0, 0, 1, 0, 0, 2, 1, 0, 2, -1 };
        uint[] faces = { 0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5 };
        using (var world = new XpbdWorld())
        {
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            XpbdClothSettings.SetPressure(ref desc, 1.0f, 0.0f);
            XpbdCloth ball = world.CreateCloth(octahedron, faces, null, desc);
            Expect(ball.GetMeshReport().closed == 1, "closed");
            ExpectNear(ball.Volume, 4.0f / 3.0f, 1e-5f, "the octahedron's volume");
            for (int frame = 0; frame < 30; ++frame) world.Step(1.0f / 60.0f);
            ExpectNear(ball.Volume, 4.0f / 3.0f, 0.01f * 4.0f / 3.0f, "held within 1 %");
            float[] positions;
            uint[] indices;
            XpbdGridMesh.Create(4, 4, 1.0f, 1.0f, out positions, out indices);
            var e = Throws<XpbdInvalidArgumentException>(() => world.CreateCloth(positions, indices, null, desc));
            Expect(e.Message.Contains("`pressure` = 1 needs a closed"), "the message says why: " + e.Message);
            XpbdCloth sheet = world.CreateCloth(positions, indices);
            Throws<XpbdInvalidArgumentException>(() => { float v = sheet.Volume; });
        }
    }
}
