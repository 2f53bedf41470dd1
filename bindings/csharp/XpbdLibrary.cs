// Loading the native library once, the ABI version check, result-code checking and the
// process-wide live-object counts.
using System;
using System.Text;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// The native library as a whole. Every object constructor calls <see cref="EnsureLoaded"/>,
    /// so the version check happens once, at first use, with a readable message.
    /// </summary>
    public static unsafe class XpbdLibrary
    {
        static readonly object gate = new object();
        static volatile bool checkedOnce;
        // Set once when loading or the version check failed: every later use fails the same way.
        static string loadError;

        /// <summary>The ABI version these bindings were generated for (NativeMethods.XPBD_ABI_VERSION).</summary>
        public static uint BindingsAbiVersion { get { return NativeMethods.XPBD_ABI_VERSION; } }

        /// <summary>
        /// Load the library and check its ABI version (once per process; later calls return at
        /// once). Throws <see cref="XpbdAbiVersionException"/> on a version mismatch and
        /// <see cref="DllNotFoundException"/> naming the library file when it cannot be found.
        /// </summary>
        public static void EnsureLoaded()
        {
            if (checkedOnce)
            {
                if (loadError != null) throw new XpbdAbiVersionException(loadError);
                return;
            }
            lock (gate)
            {
                if (!checkedOnce)
                {
                    uint loaded;
                    try
                    {
                        loaded = NativeMethods.xpbd_abi_version();
                    }
                    catch (DllNotFoundException e)
                    {
                        // Not cached: the user may still put the library in place and retry.
                        throw new DllNotFoundException(
                            "xpbd_cloth: the native library was not found (libxpbd_cloth.so on Linux and Android, " +
                            "libxpbd_cloth.dylib on macOS, xpbd_cloth.dll on Windows, linked statically on iOS/WebGL). " +
                            "Build it with `cargo build --release` and put it next to the program or on the library path; " +
                            "in Unity run unity-sample/build-native.sh, or add the package tarball that scripts/dist.sh makes. (" +
                            e.Message + ")", e);
                    }
                    catch (EntryPointNotFoundException e)
                    {
                        // With DllImport("__Internal") (iOS, WebGL) a missing library shows up here.
                        throw new EntryPointNotFoundException(
                            "xpbd_cloth: xpbd_abi_version was not found: on iOS and WebGL the static library " +
                            "libxpbd_cloth.a must be linked into the player (Plugins/iOS, Plugins/WebGL); elsewhere " +
                            "the library that was loaded is not xpbd_cloth. (" + e.Message + ")", e);
                    }
                    loadError = AbiMismatchMessage(NativeMethods.XPBD_ABI_VERSION, loaded);
                    checkedOnce = true;
                }
            }
            if (loadError != null) throw new XpbdAbiVersionException(loadError);
        }

        /// <summary>Null when the versions agree, else the message explaining the mismatch.</summary>
        internal static string AbiMismatchMessage(uint bindings, uint library)
        {
            if (bindings == library) return null;
            return "xpbd_cloth: the native library implements ABI version " + library +
                " but these C# bindings were generated for version " + bindings +
                ". Use the library and bindings/csharp from the same xpbd_cloth build " +
                "(in Unity: run unity-sample/build-native.sh again, or add one package tarball that scripts/dist.sh makes).";
        }

        /// <summary>The calling thread's last error message from the library ("" before any error).</summary>
        public static string LastErrorMessage()
        {
            const int StackCapacity = 512;
            byte* small = stackalloc byte[StackCapacity];
            ulong needed = NativeMethods.xpbd_last_error_message(small, new UIntPtr(StackCapacity)).ToUInt64();
            if (needed <= StackCapacity) return Utf8(small, (int)needed - 1);
            // Rare: a message longer than the stack buffer. Ask again with the exact size.
            var big = new byte[needed];
            fixed (byte* p = big)
            {
                NativeMethods.xpbd_last_error_message(p, new UIntPtr(needed));
                return Utf8(p, (int)needed - 1);
            }
        }

        static string Utf8(byte* bytes, int length)
        {
            return length <= 0 ? "" : Encoding.UTF8.GetString(bytes, length);
        }

        /// <summary>Throw the exception of <paramref name="result"/>, with this thread's message, unless it is Ok.</summary>
        internal static void Check(XpbdResult result)
        {
            if (result != XpbdResult.Ok) throw XpbdException.FromResult(result, LastErrorMessage());
        }

        /// <summary>Live (created, not destroyed) worlds in this process; for leak checks, not per frame.</summary>
        public static int LiveWorldCount
        {
            get
            {
                EnsureLoaded();
                uint count;
                Check(NativeMethods.xpbd_live_world_count(&count));
                return (int)count;
            }
        }

        /// <summary>Live cloths in all live worlds of this process; for leak checks, not per frame.</summary>
        public static int LiveClothCount
        {
            get
            {
                EnsureLoaded();
                uint count;
                Check(NativeMethods.xpbd_live_cloth_count(&count));
                return (int)count;
            }
        }

        /// <summary>Render proxies alive in all live worlds (for leak checks).</summary>
        public static int LiveRenderProxyCount
        {
            get
            {
                EnsureLoaded();
                uint count;
                Check(NativeMethods.xpbd_live_render_proxy_count(&count));
                return (int)count;
            }
        }

        /// <summary>Live mesh shapes in all live worlds of this process; for leak checks, not per frame.</summary>
        public static int LiveMeshShapeCount
        {
            get
            {
                EnsureLoaded();
                uint count;
                Check(NativeMethods.xpbd_live_mesh_shape_count(&count));
                return (int)count;
            }
        }

        /// <summary>Live colliders in all live worlds of this process; for leak checks, not per frame.</summary>
        public static int LiveColliderCount
        {
            get
            {
                EnsureLoaded();
                uint count;
                Check(NativeMethods.xpbd_live_collider_count(&count));
                return (int)count;
            }
        }
    }
}
