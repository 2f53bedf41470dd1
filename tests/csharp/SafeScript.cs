// A user script as a plain Unity script would be written: no `unsafe`, no pointers. It sets
// gravity, wind, an extra acceleration and a collider's pose through the safe vector properties;
// tests/csharp_mono.rs compiles it without -unsafe against the bindings (CS0214 otherwise).
using Xpbd;
using Xpbd.Native;

public static class SafeScript
{
    public static void Configure(ref XpbdWorldDesc world, ref XpbdClothDesc cloth, ref XpbdClothParams settings, ref XpbdColliderDesc collider)
    {
        world.Gravity = new XpbdVector3(0, -9.81f, 0);
        cloth.WindVelocity = new XpbdVector3(4, 0, 0);
        cloth.ExternalAcceleration = new XpbdVector3(0, 0.5f, 0);
        settings.WindVelocity = new XpbdVector3(settings.WindVelocity.x + 1, 0, 0);
        settings.ExternalAcceleration = cloth.ExternalAcceleration;
        collider.Position = new XpbdVector3(0, 1, 0);
        collider.HalfExtents = new XpbdVector3(0.5f, 0.5f, 0.5f);
        collider.Rotation = new XpbdQuaternion(0, 0, 0, 1);
    }
}
