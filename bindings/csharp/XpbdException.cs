// Errors of the idiomatic layer: one exception type per XpbdResult code, each carrying the
// library's message (xpbd_last_error_message), which names the function, argument and index.
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>
    /// A call into xpbd_cloth failed. <see cref="Result"/> is the C result code; <see cref="Exception.Message"/>
    /// is the library's reason ("xpbd_world_step: dt = 0 s: ..."). A failed call changed nothing.
    /// Catch a subclass for one kind of failure, or this type for all of them.
    /// </summary>
    public class XpbdException : Exception
    {
        /// <summary>The C result code (never <c>XpbdResult.Ok</c>).</summary>
        public XpbdResult Result { get; private set; }

        public XpbdException(XpbdResult result, string message) : base(message)
        {
            Result = result;
        }

        /// <summary>
        /// The exception for <paramref name="result"/>: the subclass of its code, or this base type for
        /// a code this binding does not know (a newer library; codes are only appended).
        /// </summary>
        public static XpbdException FromResult(XpbdResult result, string message)
        {
            switch (result)
            {
                case XpbdResult.NullPointer: return new XpbdNullPointerException(message);
                case XpbdResult.InvalidId: return new XpbdInvalidIdException(message);
                case XpbdResult.InvalidArgument: return new XpbdInvalidArgumentException(message);
                case XpbdResult.InvalidMesh: return new XpbdInvalidMeshException(message);
                case XpbdResult.BufferSizeMismatch: return new XpbdBufferSizeMismatchException(message);
                case XpbdResult.SimulationUnstable: return new XpbdSimulationUnstableException(message);
                case XpbdResult.Panic: return new XpbdPanicException(message);
                case XpbdResult.WorldPoisoned: return new XpbdWorldPoisonedException(message);
                case XpbdResult.CapacityExceeded: return new XpbdCapacityExceededException(message);
                case XpbdResult.InvalidSnapshot: return new XpbdInvalidSnapshotException(message);
                case XpbdResult.StepNotBegun: return new XpbdStepNotBegunException(message);
                case XpbdResult.StepInProgress: return new XpbdStepInProgressException(message);
                case XpbdResult.NotReady: return new XpbdNotReadyException(message);
                case XpbdResult.NotGrabbed: return new XpbdNotGrabbedException(message);
                default: return new XpbdException(result, "xpbd_cloth returned result code " + (int)result + ": " + message);
            }
        }
    }

    /// <summary>A pointer was NULL while its count was not zero (only reachable through the IntPtr overloads).</summary>
    public sealed class XpbdNullPointerException : XpbdException
    {
        public XpbdNullPointerException(string message) : base(XpbdResult.NullPointer, message) { }
    }

    /// <summary>An id was null, stale (destroyed), of another kind, or forged.</summary>
    public sealed class XpbdInvalidIdException : XpbdException
    {
        public XpbdInvalidIdException(string message) : base(XpbdResult.InvalidId, message) { }
    }

    /// <summary>An argument or descriptor field was outside its documented range (dt, compliance, pin index, ...).</summary>
    public sealed class XpbdInvalidArgumentException : XpbdException
    {
        public XpbdInvalidArgumentException(string message) : base(XpbdResult.InvalidArgument, message) { }
    }

    /// <summary>The mesh cannot be simulated (no vertices, index out of range, NaN position, degenerate triangle).</summary>
    public sealed class XpbdInvalidMeshException : XpbdException
    {
        public XpbdInvalidMeshException(string message) : base(XpbdResult.InvalidMesh, message) { }
    }

    /// <summary>A buffer's element count differs from the one the cloth needs (e.g. not 3 floats per render vertex).</summary>
    public sealed class XpbdBufferSizeMismatchException : XpbdException
    {
        public XpbdBufferSizeMismatchException(string message) : base(XpbdResult.BufferSizeMismatch, message) { }
    }

    /// <summary>
    /// World step: one or more cloths failed their explosion guard (NaN, or a vertex moved beyond its
    /// bound). Every cloth was stepped; the unstable ones were put back as their recovery setting says.
    /// </summary>
    public sealed class XpbdSimulationUnstableException : XpbdException
    {
        public XpbdSimulationUnstableException(string message) : base(XpbdResult.SimulationUnstable, message) { }
    }

    /// <summary>The library panicked: a bug in xpbd_cloth; please report the message.</summary>
    public sealed class XpbdPanicException : XpbdException
    {
        public XpbdPanicException(string message) : base(XpbdResult.Panic, message) { }
    }

    /// <summary>The world was poisoned by an earlier panic; only disposing it works.</summary>
    public sealed class XpbdWorldPoisonedException : XpbdException
    {
        public XpbdWorldPoisonedException(string message) : base(XpbdResult.WorldPoisoned, message) { }
    }

    /// <summary>Too many objects alive: 65 536 worlds, or 65 536 cloths in one world.</summary>
    public sealed class XpbdCapacityExceededException : XpbdException
    {
        public XpbdCapacityExceededException(string message) : base(XpbdResult.CapacityExceeded, message) { }
    }

    /// <summary>
    /// Restore state: the buffer is not a snapshot this cloth accepts (not a snapshot, other format
    /// version, checksum mismatch, other mesh, non-finite values). The cloth is unchanged.
    /// </summary>
    public sealed class XpbdInvalidSnapshotException : XpbdException
    {
        public XpbdInvalidSnapshotException(string message) : base(XpbdResult.InvalidSnapshot, message) { }
    }

    /// <summary><see cref="XpbdWorld.StepEnd"/> without a <see cref="XpbdWorld.StepBegin"/> since the last StepEnd.</summary>
    public sealed class XpbdStepNotBegunException : XpbdException
    {
        public XpbdStepNotBegunException(string message) : base(XpbdResult.StepNotBegun, message) { }
    }

    /// <summary>
    /// <see cref="XpbdWorld.StepBegin"/>, <see cref="XpbdWorld.Step"/> or <see cref="XpbdWorld.Advance"/>
    /// between a StepBegin and its <see cref="XpbdWorld.StepEnd"/>: nothing started; end the step first.
    /// </summary>
    public sealed class XpbdStepInProgressException : XpbdException
    {
        public XpbdStepInProgressException(string message) : base(XpbdResult.StepInProgress, message) { }
    }

    /// <summary>
    /// A mesh shape from <see cref="XpbdWorld.CreateMeshShapeAsync"/> was queried before its build
    /// ended (poll <see cref="XpbdMeshShape.IsReady"/>), or after it failed.
    /// </summary>
    public sealed class XpbdNotReadyException : XpbdException
    {
        public XpbdNotReadyException(string message) : base(XpbdResult.NotReady, message) { }
    }

    /// <summary>
    /// <see cref="XpbdCloth.GrabMove"/> or <see cref="XpbdCloth.Release"/> named a vertex that is not
    /// grabbed (never grabbed, or released already); nothing changed.
    /// </summary>
    public sealed class XpbdNotGrabbedException : XpbdException
    {
        public XpbdNotGrabbedException(string message) : base(XpbdResult.NotGrabbed, message) { }
    }

    /// <summary>
    /// The loaded native library implements another ABI version than these bindings were generated
    /// for: replace one of them so that both come from the same xpbd_cloth build.
    /// </summary>
    public sealed class XpbdAbiVersionException : Exception
    {
        public XpbdAbiVersionException(string message) : base(message) { }
    }
}
