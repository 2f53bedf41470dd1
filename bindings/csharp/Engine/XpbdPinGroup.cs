// Pinned vertices that follow an anchor transform (the cloth's own object, a pole, a hand).
using System;

namespace Xpbd
{
    /// <summary>
    /// Render vertices pinned to an anchor: their positions are stored in the anchor's space when
    /// the group is made, and <see cref="MoveAnchor"/> turns them into world-space targets that
    /// <see cref="XpbdClothSimulation.Step"/> sends before each step. All buffers are pinned once,
    /// so following a moving anchor allocates nothing per frame.
    /// </summary>
    public sealed class XpbdPinGroup : IDisposable
    {
        readonly XpbdPinnedArray<uint> vertices;
        readonly float[] anchorLocal;
        readonly XpbdPinnedArray<float> targets;

        /// <param name="pinned">Render vertex indices.</param>
        /// <param name="worldPositions">Every vertex's current world position, <c>float[3*vertexCount]</c> [m].</param>
        /// <param name="anchorToWorld">The anchor's transform now.</param>
        internal XpbdPinGroup(uint[] pinned, float[] worldPositions, XpbdAffine anchorToWorld)
        {
            XpbdAffine worldToAnchor = anchorToWorld.Inverse();
            anchorLocal = new float[3 * pinned.Length];
            targets = new XpbdPinnedArray<float>(3 * pinned.Length);
            for (int k = 0; k < pinned.Length; ++k)
            {
                uint v = pinned[k];
                if (3 * (long)v + 2 >= worldPositions.Length)
                {
                    throw new ArgumentOutOfRangeException("pinned", "pin " + k + " is vertex " + v + ", beyond the mesh");
                }
                float x, y, z;
                worldToAnchor.TransformPoint(worldPositions[3 * v], worldPositions[3 * v + 1], worldPositions[3 * v + 2], out x, out y, out z);
                anchorLocal[3 * k] = x; anchorLocal[3 * k + 1] = y; anchorLocal[3 * k + 2] = z;
                targets.Array[3 * k] = worldPositions[3 * v];
                targets.Array[3 * k + 1] = worldPositions[3 * v + 1];
                targets.Array[3 * k + 2] = worldPositions[3 * v + 2];
            }
            vertices = new XpbdPinnedArray<uint>((uint[])pinned.Clone());
        }

        /// <summary>The pinned render vertices.</summary>
        public uint[] Vertices { get { return vertices.Array; } }

        /// <summary>The world-space targets [m] that the next step reaches, <c>float[3*Vertices.Length]</c>.</summary>
        public float[] Targets { get { return targets.Array; } }

        /// <summary>Set the anchor's transform for the next step: targets = anchorToWorld · (stored anchor-space positions).</summary>
        public void MoveAnchor(XpbdAffine anchorToWorld)
        {
            float[] t = targets.Array;
            for (int k = 0; k < t.Length; k += 3)
            {
                anchorToWorld.TransformPoint(anchorLocal[k], anchorLocal[k + 1], anchorLocal[k + 2], out t[k], out t[k + 1], out t[k + 2]);
            }
        }

        internal void Send(XpbdCloth cloth)
        {
            if (vertices.Length > 0) cloth.SetPinTargets(vertices, targets);
        }

        public void Dispose()
        {
            vertices.Dispose();
            targets.Dispose();
        }
    }
}
