// SafeHandle-style ownership of one native id.
using System;
using System.Runtime.ConstrainedExecution;
using System.Threading;

namespace Xpbd
{
    /// <summary>
    /// Owns one native id and releases it exactly once: on <see cref="Dispose"/>, or from the
    /// finalizer thread when the object was left to the garbage collector. Like
    /// <c>SafeHandle</c>, it is a critical finalizer object and release is an atomic exchange, so
    /// concurrent or repeated disposal is harmless. Unlike <c>SafeHandle</c> it stores the 64-bit
    /// id itself rather than an <c>IntPtr</c>, which is 32 bits on WebGL and 32-bit Android. No
    /// reference counting is needed during calls: the library answers a destroyed id with
    /// XPBD_RESULT_INVALID_ID instead of touching freed memory, and destroy waits for a call in
    /// flight on the same world.
    /// </summary>
    public abstract class XpbdNativeObject : CriticalFinalizerObject, IDisposable
    {
        // 0 = none (never created, or released). Stored as long for Interlocked.
        long id;

        /// <summary>Take ownership of a freshly created native id (never 0).</summary>
        protected void Adopt(ulong nativeId)
        {
            Volatile.Write(ref id, (long)nativeId);
        }

        /// <summary>The native id, or 0 once released.</summary>
        protected ulong RawId { get { return (ulong)Volatile.Read(ref id); } }

        /// <summary>True once <see cref="Dispose"/> (or the finalizer) released the native object.</summary>
        public virtual bool IsDisposed { get { return Volatile.Read(ref id) == 0; } }

        /// <summary>Destroy the native object now. Calling it again, from any thread, does nothing.</summary>
        public void Dispose()
        {
            Release();
            GC.SuppressFinalize(this);
        }

        ~XpbdNativeObject()
        {
            Release();
        }

        void Release()
        {
            long old = Interlocked.Exchange(ref id, 0);
            if (old != 0) ReleaseNative((ulong)old);
        }

        /// <summary>
        /// Destroy the native object. Runs once, possibly on the finalizer thread: must not throw
        /// and must not touch other managed objects that may already be finalized.
        /// </summary>
        protected abstract void ReleaseNative(ulong nativeId);

        /// <summary>The id for a call; throws <see cref="ObjectDisposedException"/> once released.</summary>
        protected ulong LiveId()
        {
            ulong current = RawId;
            if (current == 0 || IsDisposed) throw new ObjectDisposedException(GetType().Name);
            return current;
        }
    }
}
