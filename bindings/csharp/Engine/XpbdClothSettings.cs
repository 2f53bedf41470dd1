// Engine inspector values into the cloth descriptor, for the settings whose C form differs from
// an inspector field (uint flags, the recovery enum as uint). UnityEngine-free, so the Mono tests
// cover it; the Unity component passes its fields through.
using Xpbd.Native;

namespace Xpbd
{
    /// <summary>Fill groups of <see cref="XpbdClothDesc"/> fields from typed engine values.</summary>
    public static class XpbdClothSettings
    {
        /// <summary>
        /// Self-collision (docs/design.md, "Self-collision"): <paramref name="enabled"/> keeps particles of the
        /// cloth at least 2r apart, r = <paramref name="radius"/> in metres (0 = the descriptor's
        /// <c>collision_thickness</c>, else 1e-6..1; about half the mesh's edge length), with friction
        /// coefficients <paramref name="staticFriction"/> μ_s and <paramref name="kineticFriction"/>
        /// μ_k (0..100) between touching layers. Ranges are checked by <c>xpbd_cloth_create</c>.
        /// </summary>
        public static void SetSelfCollision(ref XpbdClothDesc desc, bool enabled, float radius, float staticFriction, float kineticFriction)
        {
            desc.enable_self_collision = enabled ? 1u : 0u;
            desc.self_collision_radius = radius;
            desc.self_static_friction = staticFriction;
            desc.self_kinetic_friction = kineticFriction;
        }

        /// <summary>
        /// Robustness (docs/robustness.md): <paramref name="inertiaScale"/> s in [0, 1], the fraction
        /// of its pins' translation the cloth feels (1 = fully physical); the explosion guard's
        /// largest plausible particle speed <paramref name="maxParticleSpeed"/> in m/s (0.001..1e6) and
        /// what it does with an unstable cloth, <paramref name="recovery"/>.
        /// </summary>
        public static void SetRobustness(ref XpbdClothDesc desc, float inertiaScale, float maxParticleSpeed, XpbdUnstableRecovery recovery)
        {
            desc.inertia_scale = inertiaScale;
            desc.max_particle_speed = maxParticleSpeed;
            desc.unstable_recovery = (uint)recovery;
        }

        /// <summary>
        /// Tearing (docs/design.md, "Tearing"): a <paramref name="tearable"/> cloth reserves
        /// <paramref name="maxExtraVertices"/> render vertices for cuts (0 = as many as the mesh has,
        /// <paramref name="vertexCount"/>) and tears where an edge is stretched beyond
        /// 1 + <paramref name="tearStrain"/> times its rest length (0 = only scripted cuts,
        /// <see cref="XpbdCloth.Tear"/>). A cloth that is not tearable reserves nothing and never tears.
        /// </summary>
        public static void SetTearing(ref XpbdClothDesc desc, bool tearable, int vertexCount, int maxExtraVertices, float tearStrain)
        {
            if (!tearable)
            {
                desc.max_extra_vertices = 0;
                desc.tear_strain = 0f;
                return;
            }
            desc.max_extra_vertices = (uint)(maxExtraVertices > 0 ? maxExtraVertices : vertexCount);
            desc.tear_strain = tearStrain;
        }

        /// <summary>
        /// Pressure for a closed cloth (docs/design.md, "Pressure"): the enclosed volume is held at
        /// <paramref name="pressure"/> times the rest volume (0 = off), with compliance
        /// <paramref name="volumeCompliance"/> in m³/Pa (0 = exact). The mesh must be closed and
        /// consistently wound: <c>xpbd_cloth_create</c> refuses pressure on an open one.
        /// </summary>
        public static void SetPressure(ref XpbdClothDesc desc, float pressure, float volumeCompliance)
        {
            desc.pressure = pressure;
            desc.volume_compliance = volumeCompliance;
        }
    }
}
