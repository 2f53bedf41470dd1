// Builds the sample scene from code: add this component to an empty GameObject in a new scene
// and press Play. A flag on a pole, held at two corners by grips on the pole (transform pins)
// and blown by a steady wind, and a curtain hanging from a rail by its top row (a vertex list),
// bulging around a ball (a SphereCollider pushed to the native world).
// Move the pole or the rail in the Scene view while playing: the pinned vertices follow, the
// rest of the cloth trails behind.
using UnityEngine;
using Xpbd.Unity;

public sealed class FlagAndCurtainSample : MonoBehaviour
{
    void Start()
    {
        // A 3 m pole; a 1.5 m × 1 m flag whose left edge runs along it from 2.8 m down to 1.8 m.
        GameObject pole = GameObject.CreatePrimitive(PrimitiveType.Cylinder);
        pole.name = "Pole";
        pole.transform.position = new Vector3(-2f, 1.5f, 0f);
        pole.transform.localScale = new Vector3(0.05f, 1.5f, 0.05f);
        var flagTopLeft = new Vector3(-2f, 2.8f, 0f);
        XpbdClothComponent flag = Cloth("Flag", 24, 16, 1.5f, 1.0f, flagTopLeft);
        // Grips: children of the pole at the flag's two left corners. Vertices within 3 cm of a
        // grip (less than half the 6.5 cm vertex spacing: exactly the corner) follow it.
        flag.transformPins = new[]
        {
            new XpbdTransformPin { anchor = Grip(pole.transform, "Top grip", flagTopLeft), radius = 0.03f },
            new XpbdTransformPin { anchor = Grip(pole.transform, "Bottom grip", flagTopLeft - new Vector3(0f, 1.0f, 0f)), radius = 0.03f },
        };
        flag.externalAcceleration = new Vector3(3f, 0f, 1f); // steady breeze, m/s²
        flag.linearDamping = 0.3f; // 1/s
        flag.gameObject.SetActive(true);

        // A 2 m × 2.5 m curtain under a rail at 3 m; its top row (grid row 0) is pinned by list and,
        // as a child of the rail, follows it.
        GameObject rail = GameObject.CreatePrimitive(PrimitiveType.Cube);
        rail.name = "Rail";
        rail.transform.position = new Vector3(2f, 3.0f, 0f);
        rail.transform.localScale = new Vector3(2.2f, 0.03f, 0.03f);
        XpbdClothComponent curtain = Cloth("Curtain", 30, 36, 2.0f, 2.5f, new Vector3(1f, 3.0f, 0f));
        var top = new int[30];
        for (int i = 0; i < top.Length; ++i) top[i] = i;
        curtain.pinnedVertices = top;
        curtain.arealDensity = 0.3f; // heavier drapery fabric, kg/m²
        curtain.thickness = 1e-3f; // m
        // A ball behind the curtain's middle (radius 0.5 m × scale 0.6 = 0.3 m, 0.25 m behind the
        // curtain's plane): its SphereCollider is pushed to the curtain's world, which bulges around
        // it. Move the ball while playing: the collider follows its Transform.
        GameObject ball = GameObject.CreatePrimitive(PrimitiveType.Sphere);
        ball.name = "Ball";
        ball.transform.position = new Vector3(2f, 1.5f, 0.25f);
        ball.transform.localScale = new Vector3(0.6f, 0.6f, 0.6f);
        curtain.colliders = new[] { ball.GetComponent<Collider>() };
        curtain.transform.SetParent(rail.transform, true);
        curtain.gameObject.SetActive(true);
    }

    static Transform Grip(Transform pole, string name, Vector3 position)
    {
        var grip = new GameObject(name).transform;
        grip.position = position;
        grip.SetParent(pole, true);
        return grip;
    }

    // An inactive GameObject with a grid mesh (top row at topLeft), a material and the cloth
    // component: fields are set before activation because the component reads them in OnEnable.
    static XpbdClothComponent Cloth(string name, int columns, int rows, float width, float height, Vector3 topLeft)
    {
        var go = new GameObject(name);
        go.SetActive(false);
        go.transform.position = topLeft - new Vector3(0f, height, 0f);
        go.AddComponent<MeshFilter>().sharedMesh = XpbdUnity.GridMesh(columns, rows, width, height);
        Shader shader = Shader.Find("Universal Render Pipeline/Lit");
        if (shader == null) shader = Shader.Find("Standard");
        go.AddComponent<MeshRenderer>().sharedMaterial = new Material(shader);
        return go.AddComponent<XpbdClothComponent>();
    }
}
