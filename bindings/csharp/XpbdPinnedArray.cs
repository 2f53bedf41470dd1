// A managed array pinned once and reused every frame.
using System;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Xpbd
{
    /// <summary>
    /// A managed array pinned for its whole life with a <see cref="GCHandle"/>, so that it can be
    /// passed to the library every frame without pinning, copying or allocating. T must be
    /// unmanaged: float, uint, or a struct of such fields like UnityEngine.Vector3 (one vertex per
    /// element), which can then go straight to Mesh.SetVertices. A T that holds a reference anywhere
    /// in its fields is refused at construction with <see cref="ArgumentException"/> (Mono pins such
    /// arrays, and a read would write floats over the references). Dispose unpins it; a pinned
    /// array left to the GC is unpinned by the finalizer.
    /// </summary>
    public sealed class XpbdPinnedArray<T> : IDisposable where T : struct
    {
        GCHandle handle;

        // Whether T is unmanaged, and if not the field path that holds a reference: found once per T.
        static readonly string referencePath = ReferenceIn(typeof(T), typeof(T).Name, 0);

        /// <summary>The pinned array; read and write it freely, do not replace it.</summary>
        public T[] Array { get; private set; }

        /// <summary>Address of element 0 (IntPtr.Zero once disposed).</summary>
        public IntPtr Pointer { get; private set; }

        /// <summary>Size of one element in bytes.</summary>
        public int ElementSize { get; private set; }

        /// <summary>Pin a new array of <paramref name="length"/> elements.</summary>
        public XpbdPinnedArray(int length) : this(new T[length]) { }

        /// <summary>Pin <paramref name="array"/> (it stays pinned until Dispose).</summary>
        public XpbdPinnedArray(T[] array)
        {
            if (array == null) throw new ArgumentNullException("array");
            if (referencePath != null)
            {
                throw new ArgumentException(
                    "XpbdPinnedArray<" + typeof(T).Name + ">: " + referencePath + " is a reference; a pinned buffer needs an unmanaged type (floats, ints, structs of them)",
                    "array");
            }
            ElementSize = Marshal.SizeOf(typeof(T));
            // Throws ArgumentException for non-blittable T: reported at construction, not per frame.
            handle = GCHandle.Alloc(array, GCHandleType.Pinned);
            Array = array;
            Pointer = handle.AddrOfPinnedObject();
        }

        /// <summary>Null when <paramref name="type"/> holds no reference; else the path to the first one.</summary>
        static string ReferenceIn(Type type, string path, int depth)
        {
            if (type.IsPrimitive || type.IsPointer || type.IsEnum) return null;
            if (!type.IsValueType || depth > 16) return path;
            foreach (FieldInfo f in type.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic))
            {
                string inner = ReferenceIn(f.FieldType, path + "." + f.Name, depth + 1);
                if (inner != null) return inner;
            }
            return null;
        }

        /// <summary>Number of elements.</summary>
        public int Length { get { return Array.Length; } }

        /// <summary>
        /// How many 3-float vertices the array holds; throws <see cref="XpbdBufferSizeMismatchException"/>
        /// when its size is not a whole number of them.
        /// </summary>
        public int VertexCount
        {
            get
            {
                long bytes = (long)Array.Length * ElementSize;
                if (bytes % (3 * sizeof(float)) != 0)
                {
                    throw new XpbdBufferSizeMismatchException(
                        "pinned array of " + Array.Length + " × " + ElementSize + " bytes is not a whole number of 3-float vertices");
                }
                return (int)(bytes / (3 * sizeof(float)));
            }
        }

        internal IntPtr LivePointer()
        {
            if (Pointer == IntPtr.Zero) throw new ObjectDisposedException("XpbdPinnedArray");
            return Pointer;
        }

        public void Dispose()
        {
            Unpin();
            GC.SuppressFinalize(this);
        }

        ~XpbdPinnedArray()
        {
            Unpin();
        }

        void Unpin()
        {
            Pointer = IntPtr.Zero;
            if (handle.IsAllocated) handle.Free();
        }
    }
}
