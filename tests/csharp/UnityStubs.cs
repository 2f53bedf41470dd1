// Declarations of exactly the UnityEngine/UnityEditor members that unity-sample uses, with
// Unity's signatures (2021.3 scripting API), so that mcs can type-check the Unity layer here,
// where Unity cannot run. Bodies are empty: this file is compiled, never run.
#pragma warning disable 0067, 0649
using System;

namespace UnityEngine
{
    public class Object
    {
        public string name { get; set; }
        public static T Instantiate<T>(T original) where T : Object { return original; }
        public static void Destroy(Object obj) { }
        public static implicit operator bool(Object exists) { return exists != null; }
        public static bool operator ==(Object x, Object y) { return ReferenceEquals(x, y); }
        public static bool operator !=(Object x, Object y) { return !ReferenceEquals(x, y); }
        public override bool Equals(object other) { return ReferenceEquals(this, other); }
        public override int GetHashCode() { return 0; }
        public static T[] FindObjectsOfType<T>() where T : Object { return new T[0]; }
    }
    public class Component : Object
    {
        public Transform transform { get { return null; } }
        public GameObject gameObject { get { return null; } }
        public T GetComponent<T>() { return default(T); }
    }
    public class Behaviour : Component { public bool enabled { get; set; } }
    public class MonoBehaviour : Behaviour { }
    public class GameObject : Object
    {
        public GameObject(string name) { }
        public Transform transform { get { return null; } }
        public int layer { get; set; }
        public T GetComponent<T>() { return default(T); }
        public void SetActive(bool value) { }
        public T AddComponent<T>() where T : Component { return null; }
        public static GameObject CreatePrimitive(PrimitiveType type) { return null; }
    }
    public enum PrimitiveType { Sphere, Capsule, Cylinder, Cube, Plane, Quad }
    public class Transform : Component
    {
        public Vector3 position { get; set; }
        public Vector3 localScale { get; set; }
        public Vector3 lossyScale { get { return default(Vector3); } }
        public Quaternion rotation { get; set; }
        public Matrix4x4 localToWorldMatrix { get { return default(Matrix4x4); } }
        public Matrix4x4 worldToLocalMatrix { get { return default(Matrix4x4); } }
        public void SetParent(Transform parent, bool worldPositionStays) { }
    }
    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static Vector3 zero { get { return default(Vector3); } }
        public static Vector3 operator -(Vector3 a, Vector3 b) { return a; }
    }
    public struct Vector2
    {
        public float x, y;
        public Vector2(float x, float y) { this.x = x; this.y = y; }
    }
    public struct Color
    {
        public float r, g, b, a;
        public Color(float r, float g, float b, float a) { this.r = r; this.g = g; this.b = b; this.a = a; }
    }
    public struct Quaternion { public float x, y, z, w; }
    public struct LayerMask
    {
        public int value { get { return 0; } set { } }
        public static implicit operator int(LayerMask mask) { return mask.value; }
        public static implicit operator LayerMask(int intVal) { return default(LayerMask); }
    }
    public class Collider : Component
    {
        public bool enabled { get; set; }
        public bool isTrigger { get; set; }
        public PhysicMaterial sharedMaterial { get; set; }
    }
    public class SphereCollider : Collider
    {
        public Vector3 center { get; set; }
        public float radius { get; set; }
    }
    public class CapsuleCollider : Collider
    {
        public Vector3 center { get; set; }
        public float radius { get; set; }
        public float height { get; set; }
        public int direction { get; set; }
    }
    public class BoxCollider : Collider
    {
        public Vector3 center { get; set; }
        public Vector3 size { get; set; }
    }
    public class MeshCollider : Collider
    {
        public Mesh sharedMesh { get; set; }
    }
    public class PhysicMaterial : Object
    {
        public float dynamicFriction { get; set; }
        public float staticFriction { get; set; }
    }
    public struct Matrix4x4
    {
        public float m00, m01, m02, m03, m10, m11, m12, m13, m20, m21, m22, m23, m30, m31, m32, m33;
    }
    public sealed class Mesh : Object
    {
        public Vector3[] vertices { get; set; }
        public int vertexCount { get { return 0; } }
        public int[] triangles { get; set; }
        public Vector2[] uv { get; set; }
        public int subMeshCount { get; set; }
        public Color[] colors { get; set; }
        public int[] GetTriangles(int submesh) { return null; }
        public void SetTriangles(int[] triangles, int submesh) { }
        public void SetUVs(int channel, Vector2[] uvs) { }
        public void SetColors(Color[] inColors) { }
        public void Clear() { }
        public void SetVertices<T>(Unity.Collections.NativeArray<T> inVertices, int start, int length) where T : struct { }
        public void SetNormals<T>(Unity.Collections.NativeArray<T> inNormals, int start, int length) where T : struct { }
        public Matrix4x4[] bindposes { get; set; }
        public BoneWeight[] boneWeights { get; set; }
        public void MarkDynamic() { }
        public void RecalculateNormals() { }
        public void RecalculateBounds() { }
        public void SetVertices<T>(Unity.Collections.NativeArray<T> inVertices) where T : struct { }
        public void SetNormals<T>(Unity.Collections.NativeArray<T> inNormals) where T : struct { }
    }
    public sealed class MeshFilter : Component { public Mesh sharedMesh { get; set; } }
    public class Renderer : Component
    {
        public bool enabled { get; set; }
        public Material sharedMaterial { get; set; }
        public Material[] sharedMaterials { get; set; }
    }
    public sealed class MeshRenderer : Renderer { }
    public class SkinnedMeshRenderer : Renderer
    {
        public Transform[] bones { get; set; }
        public Transform rootBone { get; set; }
        public Mesh sharedMesh { get; set; }
        public void BakeMesh(Mesh mesh, bool useScale) { }
    }
    public struct BoneWeight
    {
        public float weight0 { get; set; }
        public float weight1 { get; set; }
        public float weight2 { get; set; }
        public float weight3 { get; set; }
        public int boneIndex0 { get; set; }
        public int boneIndex1 { get; set; }
        public int boneIndex2 { get; set; }
        public int boneIndex3 { get; set; }
    }
    public sealed class Gizmos
    {
        public static Color color { get; set; }
        public static void DrawWireSphere(Vector3 center, float radius) { }
        public static void DrawLine(Vector3 from, Vector3 to) { }
    }
    public class Material : Object { public Material(Shader shader) { } }
    public sealed class Shader : Object { public static Shader Find(string name) { return null; } }
    public static class Time
    {
        public static float fixedDeltaTime { get { return 0.02f; } }
        public static float deltaTime { get { return 0.016f; } }
    }
    public static class Application { public static event Action quitting; }
    public static class Debug
    {
        public static void LogException(Exception exception, Object context) { }
        public static void LogWarning(object message, Object context) { }
    }
    public enum RuntimeInitializeLoadType { AfterSceneLoad, BeforeSceneLoad, AfterAssembliesLoaded, BeforeSplashScreen, SubsystemRegistration }
    [AttributeUsage(AttributeTargets.Method)]
    public class RuntimeInitializeOnLoadMethodAttribute : Attribute
    {
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { }
    }
    public class PropertyAttribute : Attribute { }
    [AttributeUsage(AttributeTargets.Field)] public class TooltipAttribute : PropertyAttribute { public TooltipAttribute(string tooltip) { } }
    [AttributeUsage(AttributeTargets.Field)] public class HeaderAttribute : PropertyAttribute { public HeaderAttribute(string header) { } }
    [AttributeUsage(AttributeTargets.Field)] public sealed class RangeAttribute : PropertyAttribute { public RangeAttribute(float min, float max) { } }
    [AttributeUsage(AttributeTargets.Field)] public sealed class MinAttribute : PropertyAttribute { public MinAttribute(float min) { } }
    [AttributeUsage(AttributeTargets.Class)] public sealed class RequireComponent : Attribute { public RequireComponent(Type requiredComponent) { } }
    [AttributeUsage(AttributeTargets.Class)] public sealed class DisallowMultipleComponent : Attribute { }
    [AttributeUsage(AttributeTargets.Class)] public sealed class AddComponentMenu : Attribute { public AddComponentMenu(string menuName) { } }
}

namespace Unity.Collections
{
    public enum Allocator { Invalid, None, Temp, TempJob, Persistent }
    public enum NativeArrayOptions { UninitializedMemory, ClearMemory }
    public struct NativeArray<T> : IDisposable where T : struct
    {
        public NativeArray(int length, Allocator allocator, NativeArrayOptions options) { IsCreated = true; Length = length; }
        public bool IsCreated { get; private set; }
        public int Length { get; private set; }
        public void Dispose() { }
    }
}

namespace Unity.Collections.LowLevel.Unsafe
{
    public static unsafe class NativeArrayUnsafeUtility
    {
        public static void* GetUnsafePtr<T>(this NativeArray<T> nativeArray) where T : struct { return null; }
    }
}

namespace UnityEditor
{
    public enum PlayModeStateChange { EnteredEditMode, ExitingEditMode, EnteredPlayMode, ExitingPlayMode }
    public static class EditorApplication { public static event Action<PlayModeStateChange> playModeStateChanged; }
    public static class AssemblyReloadEvents
    {
        public delegate void AssemblyReloadCallback();
        public static event AssemblyReloadCallback beforeAssemblyReload;
    }
    [AttributeUsage(AttributeTargets.Method)] public class InitializeOnLoadMethodAttribute : Attribute { }
}
