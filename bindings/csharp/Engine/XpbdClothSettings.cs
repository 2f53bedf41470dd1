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
    }
}
