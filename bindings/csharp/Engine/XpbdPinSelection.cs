// Choosing which render vertices to pin: by a vertex-colour channel, by a list, near a point.
using System;
using System.Collections.Generic;

namespace Xpbd
{
    /// <summary>Builders of sorted, duplicate-free pin lists (render vertex indices).</summary>
    public static class XpbdPinSelection
    {
        /// <summary>
        /// Vertices whose colour channel <paramref name="channel"/> (0 = R, 1 = G, 2 = B, 3 = A) is at
        /// least <paramref name="threshold"/>. <paramref name="rgba"/> is <c>float[4*vertexCount]</c>
        /// (painted in a DCC tool: e.g. red = pinned).
        /// </summary>
        public static uint[] FromColorChannel(float[] rgba, int channel, float threshold)
        {
            if (rgba == null) throw new ArgumentNullException("rgba");
            if (channel < 0 || channel > 3) throw new ArgumentOutOfRangeException("channel", channel, "0 = R, 1 = G, 2 = B, 3 = A");
            if (rgba.Length % 4 != 0) throw new ArgumentException("rgba: " + rgba.Length + " floats are not whole RGBA colours", "rgba");
            var pins = new List<uint>();
            for (int v = 0; v < rgba.Length / 4; ++v)
            {
                if (rgba[4 * v + channel] >= threshold) pins.Add((uint)v);
            }
            return pins.ToArray();
        }

        /// <summary>
        /// A user's list checked against <paramref name="vertexCount"/> (the message names the first
        /// bad entry), sorted, duplicates removed.
        /// </summary>
        public static uint[] FromList(IList<int> vertices, int vertexCount)
        {
            if (vertices == null) throw new ArgumentNullException("vertices");
            var set = new SortedSet<uint>();
            for (int k = 0; k < vertices.Count; ++k)
            {
                int v = vertices[k];
                if (v < 0 || v >= vertexCount)
                {
                    throw new ArgumentOutOfRangeException("vertices",
                        "pin list entry " + k + " is vertex " + v + ", outside 0.." + (vertexCount - 1));
                }
                set.Add((uint)v);
            }
            var pins = new uint[set.Count];
            set.CopyTo(pins);
            return pins;
        }

        /// <summary>Vertices within <paramref name="radius"/> metres of (x, y, z); positions <c>float[3*n]</c>.</summary>
        public static uint[] WithinRadius(float[] positions, float x, float y, float z, float radius)
        {
            if (positions == null) throw new ArgumentNullException("positions");
            var pins = new List<uint>();
            float r2 = radius * radius;
            for (int v = 0; v < positions.Length / 3; ++v)
            {
                float dx = positions[3 * v] - x, dy = positions[3 * v + 1] - y, dz = positions[3 * v + 2] - z;
                if (dx * dx + dy * dy + dz * dz <= r2) pins.Add((uint)v);
            }
            return pins.ToArray();
        }
    }
}
