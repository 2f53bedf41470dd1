// Debug lines: what the solver sees, for an engine's debug renderer (gizmos, ImmediateMesh).
using System;
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>What <see cref="XpbdDebugLines.Read"/> draws (xpbd_world_debug_lines' XPBD_DEBUG_* flags), or'ed.</summary>
    [Flags]
    public enum XpbdDebugFlags : uint
    {
        /// <summary>Nothing.</summary>
        None = 0,
        /// <summary>Every cloth edge, green at rest to red at the stretch limit.</summary>
        Edges = NativeMethods.XPBD_DEBUG_EDGES,
        /// <summary>Every collider's wire shape.</summary>
        Colliders = NativeMethods.XPBD_DEBUG_COLLIDERS,
        /// <summary>The collider normal at every particle touching a collider.</summary>
        Contacts = NativeMethods.XPBD_DEBUG_CONTACTS,
        /// <summary>A cross at every pinned or kinematic particle.</summary>
        Pins = NativeMethods.XPBD_DEBUG_PINS,
        /// <summary>Max-distance circles about the animated pose, and each particle's use of it.</summary>
        MaxDistance = NativeMethods.XPBD_DEBUG_MAX_DISTANCE,
        /// <summary>Backstops below the animated pose.</summary>
        Backstop = NativeMethods.XPBD_DEBUG_BACKSTOP,
        /// <summary>Every particle's normal.</summary>
        Normals = NativeMethods.XPBD_DEBUG_NORMALS,
        /// <summary>All of them.</summary>
        All = NativeMethods.XPBD_DEBUG_ALL,
    }

    /// <summary>
    /// Reusable buffers for a world's debug lines (xpbd_world_debug_lines): <see cref="Read"/> fills
    /// them and grows them (then only) when the world has more lines than they hold, so a frame
    /// that draws as many lines as the last allocates nothing. Line k runs from
    /// (<c>Positions[6k]</c>, <c>[6k+1]</c>, <c>[6k+2]</c>) to (<c>[6k+3]</c>, <c>[6k+4]</c>,
    /// <c>[6k+5]</c>) in metres, world space; its colour <c>Colors[k]</c> is RGBA8, red in the low byte.
    /// </summary>
    public sealed unsafe class XpbdDebugLines
    {
        /// <summary>Line endpoints, <c>float[6*capacity]</c>.</summary>
        public float[] Positions { get; private set; }

        /// <summary>Line colours, <c>uint[capacity]</c>: R | G &lt;&lt; 8 | B &lt;&lt; 16 | A &lt;&lt; 24.</summary>
        public uint[] Colors { get; private set; }

        /// <summary>Lines of the last <see cref="Read"/>.</summary>
        public int Count { get; private set; }

        /// <summary>Buffers for <paramref name="capacity"/> lines to start with.</summary>
        public XpbdDebugLines(int capacity)
        {
            if (capacity < 0) throw new ArgumentOutOfRangeException("capacity", capacity, "must not be negative");
            Positions = new float[6 * capacity];
            Colors = new uint[capacity];
        }

        /// <summary>
        /// Read the lines of <paramref name="world"/> that <paramref name="flags"/> ask for into the
        /// buffers (growing them to the full count when it is larger) and return their number.
        /// Waits while the world steps.
        /// </summary>
        public int Read(XpbdWorld world, XpbdDebugFlags flags)
        {
            if (world == null) throw new ArgumentNullException("world");
            uint total = world.DebugLines((uint)flags, Positions, Colors);
            if (total > Colors.Length)
            {
                int capacity = (int)Math.Min(total + total / 4, int.MaxValue / 6);
                Positions = new float[6 * capacity];
                Colors = new uint[capacity];
                total = world.DebugLines((uint)flags, Positions, Colors);
            }
            Count = (int)Math.Min(total, (uint)Colors.Length);
            return Count;
        }

        /// <summary>The colour of line <paramref name="k"/> as (r, g, b, a) in 0..1.</summary>
        public void Color(int k, out float r, out float g, out float b, out float a)
        {
            uint c = Colors[k];
            r = (c & 0xFF) / 255.0f;
            g = ((c >> 8) & 0xFF) / 255.0f;
            b = ((c >> 16) & 0xFF) / 255.0f;
            a = (c >> 24) / 255.0f;
        }
    }
}
