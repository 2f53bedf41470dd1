// The values of the uint32_t fields XpbdClothDesc.unstable_recovery and XpbdClothStatus.kind (the
// C header's XpbdUnstableRecovery and XpbdInstabilityKind enums). The raw layer carries them as
// uint, since no function takes the enums themselves; cast to compare or assign.
namespace Xpbd
{
    /// <summary>What the explosion guard does with a cloth whose step failed its check.</summary>
    public enum XpbdUnstableRecovery : uint
    {
        /// <summary>Back to the state at the end of the last step that passed (default); a second failure in a row with no change to the cloth in between puts back the rest pose (reported as RestPose).</summary>
        LastGoodState = 0,
        /// <summary>Back to the creation pose (moved by every teleport since), at rest; pins stay.</summary>
        RestPose = 1,
        /// <summary>No check and no cost: the cloth keeps what the step produced.</summary>
        Disabled = 2,
    }

    /// <summary>Why a step failed the explosion guard (<c>XpbdClothStatus.kind</c>).</summary>
    public enum XpbdInstabilityKind : uint
    {
        /// <summary>No failure since the status was last read.</summary>
        None = 0,
        /// <summary>A position or velocity became NaN or infinite.</summary>
        NonFinite = 1,
        /// <summary>A vertex moved farther in one step than d_pins + d_colliders + 2*L + max_particle_speed*dt.</summary>
        DisplacementBound = 2,
    }
}
