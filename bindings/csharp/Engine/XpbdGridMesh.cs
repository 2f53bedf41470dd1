// A rectangular cloth mesh built from arrays: the scene of examples/c/hanging_cloth.c, a flag, a curtain.
using System;

namespace Xpbd
{
    /// <summary>A vertical sheet of <c>columns × rows</c> render vertices in the x–y plane.</summary>
    public static class XpbdGridMesh
    {
        /// <summary>
        /// Vertex (i, j) (column i, row j, row-major) sits at x = width·i/(columns−1),
        /// y = height·(1 − j/(rows−1)), z = 0 [m]: the top row at y = height. Two counter-clockwise
        /// triangles per quad (a, c, b) and (b, c, d), as in examples/c/hanging_cloth.c, so the
        /// 32 × 32, 1 m grid is bit for bit the C example's.
        /// </summary>
        /// <param name="positions"><c>float[3*columns*rows]</c>, metres.</param>
        /// <param name="indices"><c>uint[6*(columns−1)*(rows−1)]</c>.</param>
        public static void Create(int columns, int rows, float width, float height, out float[] positions, out uint[] indices)
        {
            if (columns < 2 || rows < 2) throw new ArgumentOutOfRangeException("columns", "need at least 2 × 2 vertices");
            positions = new float[3 * columns * rows];
            for (int j = 0; j < rows; ++j)
            {
                for (int i = 0; i < columns; ++i)
                {
                    int k = 3 * (j * columns + i);
                    // Explicit casts round every intermediate to float, as C does with float operands.
                    float u = (float)i / (float)(columns - 1);
                    float v = (float)j / (float)(rows - 1);
                    positions[k] = (float)(width * u);
                    positions[k + 1] = (float)(height * (float)(1.0f - v));
                    positions[k + 2] = 0.0f;
                }
            }
            indices = new uint[6 * (columns - 1) * (rows - 1)];
            int t = 0;
            for (int j = 0; j < rows - 1; ++j)
            {
                for (int i = 0; i < columns - 1; ++i)
                {
                    uint a = (uint)(j * columns + i), b = a + 1, c = a + (uint)columns, d = c + 1;
                    indices[t++] = a; indices[t++] = c; indices[t++] = b;
                    indices[t++] = b; indices[t++] = c; indices[t++] = d;
                }
            }
        }
    }
}
