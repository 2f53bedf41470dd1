// Cloth on a MeshFilter's mesh. All logic is in XpbdClothSimulation (plain C#, Mono-tested);
// this file only gathers Unity data, forwards it, and uploads results to the mesh.
using System;
using System.Collections.Generic;
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using UnityEngine;
using Xpbd.Native;

namespace Xpbd.Unity
{
    /// <summary>Vertex-colour channel that marks pinned vertices.</summary>
    public enum XpbdColorChannel { Red = 0, Green = 1, Blue = 2, Alpha = 3 }

    /// <summary>Vertices near a Transform, pinned to it (they follow it every frame).</summary>
    [Serializable]
    public struct XpbdTransformPin
    {
        [Tooltip("The Transform the vertices follow (a pole, a rail, a character's bone).")]
        public Transform anchor;
        [Tooltip("Vertices within this distance of the anchor's position at start, in metres, are pinned to it.")]
        [Min(0f)] public float radius;
    }

    /// <summary>
    /// Simulates this GameObject's MeshFilter mesh as cloth. Split UV seams are welded by the
    /// library. Pins: vertices whose colour channel is at least a threshold, a vertex list (both
    /// follow this object's Transform), and vertices near other Transforms. Colliders: the
    /// Sphere, Capsule and Box colliders listed or found on the chosen layers are pushed to the
    /// native world once, when the component is enabled, and follow their Transforms every frame.
    /// Every Update advances the world by Time.deltaTime in fixed steps of Time.fixedDeltaTime (the
    /// library keeps the accumulator), and LateUpdate writes positions and normals interpolated
    /// between the last two steps back with Mesh.SetVertices/SetNormals from persistent
    /// NativeArrays, so the cloth does not judder between fixed steps and a frame allocates nothing.
    /// On a SkinnedMeshRenderer the cloth is worn (XpbdClothComponent.Worn.cs): it follows the
    /// skinned pose within per-vertex max distances and backstops. With a simulation mesh, that
    /// coarser mesh is simulated and the MeshFilter's mesh drawn bound to it (a render proxy);
    /// step interval trades the cloth's cost for its rate; while selected, the Scene view shows the
    /// library's debug lines as gizmos. A tearable cloth's mesh gains
    /// vertices where it tears: when the library's topology version changes, the component gives the
    /// Mesh the new vertex count and triangles, and each new vertex the UV and colour of the vertex it
    /// was split from. A closed mesh may hold its volume under pressure (a ball, a cushion).
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Physics/XPBD Cloth")]
    public sealed partial class XpbdClothComponent : MonoBehaviour
    {
        [Header("Material (SI units)")]
        [Tooltip("Mass per unit area in kg/m². Silk ≈ 0.05, cotton shirt ≈ 0.15, denim ≈ 0.4, canvas ≈ 0.5.")]
        [Min(1e-4f)] public float arealDensity = 0.15f;
        [Tooltip("Young's modulus of the fabric in Pa: how hard it resists stretching (woven cotton ≈ 5e6).")]
        [Min(1f)] public float youngsModulus = 5e6f;
        [Tooltip("Poisson ratio, in [0, 0.5): sideways contraction under stretch. 0.3 for most fabrics.")]
        [Range(0f, 0.49f)] public float poissonRatio = 0.3f;
        [Tooltip("Fabric thickness in metres; bending stiffness grows with its cube (cotton ≈ 5e-4). Not a collision distance.")]
        [Min(1e-6f)] public float thickness = 5e-4f;
        [Tooltip("Damping of all motion in 1/s: velocities shrink by exp(-d·h) per substep, free fall included. 0 (the default) for physical motion.")]
        [Min(0f)] public float linearDamping = 0f;
        [Tooltip("Damping in 1/s of the motion relative to the cloth's rigid motion (flapping, ripples, swaying flaps); keeps linear and angular momentum, so falling, sliding and spinning stay exact. The default 3 lets draped cloth come to rest; 0.5-1 for a livelier flag.")]
        [Min(0f)] public float deformationDamping = 3f;
        [Tooltip("Strain limit: no edge ends a step longer than this ratio times its rest length (1.025 = 2.5 %). 0 = off.")]
        [Min(0f)] public float maxStretch = 1.025f;
        [Tooltip("Extra acceleration in m/s², added to gravity: a steady wind.")]
        public Vector3 externalAcceleration = Vector3.zero;
        [Tooltip("Vertices closer than this, in metres, become one particle (welds split UV seams). 0 disables welding.")]
        [Min(0f)] public float weldTolerance = 1e-6f;

        [Header("Solver")]
        [Tooltip("Substeps per fixed step. More substeps = stiffer, more accurate cloth (cost grows linearly).")]
        [Range(1, 100)] public int substeps = 10;
        [Tooltip("Solver iterations per substep (more substeps usually beat more iterations).")]
        [Range(1, 20)] public int iterations = 1;
        [Tooltip("Gravity in m/s².")]
        public Vector3 gravity = new Vector3(0f, -9.81f, 0f);
        [Tooltip("Most fixed steps one frame may take; the rest of a longer hitch is dropped so the game does not spiral behind.")]
        [Range(1, 16)] public int maxStepsPerFrame = 4;

        [Header("Level of detail and render mesh")]
        [Tooltip("Step the cloth once every N fixed steps, over N steps of time, at about 1/N of the cost (1 = every step). 2-4 for cloth in the distance; drawn smoothly at every frame. Change it at run time with SetStepInterval.")]
        [Range(1, 16)] public int stepInterval = 1;
        [Tooltip("Optional: a coarser mesh of the same surface, in this object's space, to simulate instead of the MeshFilter's mesh, which is then drawn bound to it (a render proxy). Pins and vertex colours refer to this mesh. Not on a SkinnedMeshRenderer.")]
        public Mesh simulationMesh;
        [Tooltip("Farthest, in metres, a vertex of the drawn mesh may lie from the simulation mesh's surface (a mesh in another place or scale is reported).")]
        [Min(1e-4f)] public float renderMeshMaxDistance = 0.05f;

        [Header("Debug")]
        [Tooltip("What the Scene view draws while this object is selected and playing: edges coloured by strain (green at rest, red at the stretch limit), colliders, contacts, pins, max distances, backstops, normals.")]
        public XpbdDebugFlags gizmoLines = XpbdDebugFlags.Edges | XpbdDebugFlags.Colliders | XpbdDebugFlags.Pins;

        [Header("Pins")]
        [Tooltip("Pin vertices whose colour channel is at least the threshold (paint them in your modelling tool).")]
        public bool pinByVertexColor;
        public XpbdColorChannel pinColorChannel = XpbdColorChannel.Red;
        [Range(0f, 1f)] public float pinColorThreshold = 0.5f;
        [Tooltip("Vertex indices to pin; they follow this GameObject's Transform.")]
        public int[] pinnedVertices = new int[0];
        [Tooltip("Vertices near these Transforms follow them.")]
        public XpbdTransformPin[] transformPins = new XpbdTransformPin[0];

        [Header("Collisions")]
        [Tooltip("Every Sphere, Capsule, Box and Mesh collider on these layers (in the loaded scenes when the cloth is enabled) collides with the cloth. Triggers and disabled colliders are skipped.")]
        public LayerMask colliderLayers;
        [Tooltip("These Sphere, Capsule, Box and Mesh colliders collide with the cloth whatever their layer.")]
        public Collider[] colliders = new Collider[0];
        [Tooltip("Cell size in metres of the distance fields built from MeshColliders' sharedMesh (scale baked in): 0 = the mesh's bounding-box diagonal / 100. Keep the collision thickness below 4 cells and cells at most a third of the thinnest part.")]
        [Min(0f)] public float meshCellSize = 0f;
        [Tooltip("Distance in metres the cloth keeps from collider surfaces (contact thickness). Friction comes from each collider's Physic Material (static and dynamic friction; Unity's 0.6 without one).")]
        [Range(0f, 0.1f)] public float collisionThickness = 0.005f;
        [Tooltip("Keep the cloth's own layers apart (folds, a cape on itself), with friction between them. Set a radius suited to the mesh when turning it on.")]
        public bool selfCollision;
        [Tooltip("Self-collision particle radius r in metres: particles stay 2r apart. 0 = half the mesh's median edge length (recommended); 2r must stay below the smallest gap between layers at start.")]
        [Range(0f, 0.1f)] public float selfCollisionRadius = 0f;
        [Tooltip("Static friction coefficient μs between touching parts of the cloth (dimensionless).")]
        [Range(0f, 2f)] public float selfStaticFriction = 0.5f;
        [Tooltip("Kinetic friction coefficient μk between touching parts of the cloth (dimensionless).")]
        [Range(0f, 2f)] public float selfKineticFriction = 0.4f;

        [Header("Tearing")]
        [Tooltip("Let the cloth tear: edges stretched beyond the tear strain break, and scripts may cut it (Simulation.Cloth.Tear). The mesh gains vertices where it tears; the component rebuilds it.")]
        public bool tearable;
        [Tooltip("Vertices reserved for cuts (every buffer is sized once for them); 0 = as many as the mesh has. When they are used up the cloth stops tearing.")]
        [Min(0)] public int maxExtraVertices = 0;
        [Tooltip("An edge longer than (1 + tear strain) times its rest length tears (0.5 = 50 % longer). 0 = only scripted cuts.")]
        [Min(0f)] public float tearStrain = 0.5f;

        [Header("Pressure (closed meshes)")]
        [Tooltip("Hold the enclosed volume at this multiple of the rest volume (1 = as modelled, 2 = inflated as far as the fabric's stretch allows). 0 = off. Only for a closed, consistently wound mesh (a ball, a cushion); a tear lets the air out.")]
        [Min(0f)] public float pressure = 0f;
        [Tooltip("Compliance of the enclosed air in m³/Pa: 0 holds the volume exactly, larger values let the air compress (a soft cushion).")]
        [Min(0f)] public float volumeCompliance = 0f;

        [Header("Robustness")]
        [Tooltip("Fraction of its pins' movement the cloth feels, 0–1: 1 = fully physical (it swings behind them); 0 = carried along, only their rotation is simulated (a cape that does not stream out when its character dashes).")]
        [Range(0f, 1f)] public float inertiaScale = 1f;
        [Tooltip("Explosion guard: largest plausible particle speed in m/s. A step in which a vertex moves farther than this allows (plus pin and collider moves and twice the cloth's size) counts as unstable.")]
        [Range(0.001f, 1000f)] public float maxParticleSpeed = 100f;
        [Tooltip("What the explosion guard does with an unstable cloth: back to its last good state, back to its rest pose, or nothing (no check, no cost).")]
        public XpbdUnstableRecovery unstableRecovery = XpbdUnstableRecovery.LastGoodState;

        MeshFilter meshFilter;
        Mesh originalMesh, simulatedMesh;
        XpbdClothSimulation simulation;
        XpbdPinGroup selfPins;
        XpbdPinGroup[] anchorPins = new XpbdPinGroup[0];
        readonly List<Collider> pushedColliders = new List<Collider>();
        readonly List<XpbdTrackedCollider> trackedColliders = new List<XpbdTrackedCollider>();
        NativeArray<Vector3> positions, normals;
        float alpha; // where this frame lies between the last two steps
        readonly XpbdDebugLines debugLines = new XpbdDebugLines(0);
        XpbdTornMesh tornMesh; // a tearable cloth's render mesh, followed every frame (else null)
        Vector2[] originalUv;
        Color[] originalColors;
        int[][] submeshTriangles; // per submesh of the original, its triangles' index range in order

        /// <summary>The running simulation (null while disabled), for scripts that read statistics or change settings.</summary>
        public XpbdClothSimulation Simulation { get { return simulation; } }

        void OnEnable()
        {
            try
            {
                Create();
            }
            catch (Exception e)
            {
                Debug.LogException(e, this);
                Release();
                enabled = false;
            }
        }

        void OnDisable()
        {
            Release();
        }

        void Create()
        {
            originalMesh = SourceMesh(out meshFilter);
            if (originalMesh == null) throw new InvalidOperationException(name + ": the " + (skinnedRenderer != null ? "SkinnedMeshRenderer" : "MeshFilter") + " has no mesh");
            simulatedMesh = Instantiate(originalMesh);
            simulatedMesh.name = originalMesh.name + " (XPBD cloth)";
            simulatedMesh.MarkDynamic();
            meshFilter.sharedMesh = simulatedMesh;

            // With a simulation mesh the MeshFilter's mesh is only drawn (a render proxy).
            bool proxied = simulationMesh != null && skinnedRenderer == null;
            Mesh simulated = proxied ? simulationMesh : originalMesh;
            float[] local = XpbdUnity.Flatten(simulated.vertices);
            uint[] indices = XpbdUnity.ToIndices(simulated.triangles);
            int vertexCount = local.Length / 3;
            XpbdAffine toWorld = XpbdUnity.ToAffine(transform.localToWorldMatrix);
            simulation = new XpbdClothSimulation(local, indices, toWorld, ClothDesc(vertexCount), WorldDesc());
            if (proxied)
            {
                simulation.CreateRenderProxy(XpbdUnity.Flatten(originalMesh.vertices), XpbdUnity.ToIndices(originalMesh.triangles), renderMeshMaxDistance);
            }
            else if (simulationMesh != null)
            {
                Debug.LogWarning(name + ": a simulation mesh is not used on a SkinnedMeshRenderer (worn cloth simulates its own mesh)", this);
            }

            uint[] own = XpbdPinSelection.FromList(pinnedVertices, vertexCount);
            if (pinByVertexColor)
            {
                Color[] colors = simulated.colors;
                if (colors.Length != vertexCount) throw new InvalidOperationException(name + ": pin by vertex colour, but the mesh has no colours");
                own = Union(own, XpbdPinSelection.FromColorChannel(XpbdUnity.Flatten(colors), (int)pinColorChannel, pinColorThreshold));
            }
            selfPins = simulation.Pin(own, toWorld);
            float[] world = (float[])local.Clone();
            toWorld.TransformPoints(world);
            anchorPins = new XpbdPinGroup[transformPins.Length];
            for (int i = 0; i < transformPins.Length; ++i)
            {
                Transform anchor = transformPins[i].anchor;
                if (anchor == null) throw new InvalidOperationException(name + ": transform pin " + i + " has no anchor");
                Vector3 p = anchor.position;
                uint[] near = XpbdPinSelection.WithinRadius(world, p.x, p.y, p.z, transformPins[i].radius);
                anchorPins[i] = simulation.Pin(near, XpbdUnity.ToAffine(anchor.localToWorldMatrix));
            }

            BindWornCloth(originalMesh, vertexCount);
            PushColliders();

            // Room for every vertex cuts may add: a frame in which the cloth tears allocates no buffer.
            int drawn = proxied ? originalMesh.vertexCount : vertexCount + simulation.Cloth.MaxExtraVertices;
            positions = new NativeArray<Vector3>(drawn, Allocator.Persistent, NativeArrayOptions.UninitializedMemory);
            normals = new NativeArray<Vector3>(drawn, Allocator.Persistent, NativeArrayOptions.UninitializedMemory);
            alpha = 0f;
            if (simulation.Cloth.MaxExtraVertices > 0)
            {
                tornMesh = new XpbdTornMesh(simulation.Cloth);
                tornMesh.Update();
                originalUv = originalMesh.uv;
                originalColors = originalMesh.colors;
                submeshTriangles = new int[originalMesh.subMeshCount][];
                for (int i = 0; i < submeshTriangles.Length; ++i) submeshTriangles[i] = originalMesh.GetTriangles(i);
            }
        }

        // The cloth tore since the last frame: give the mesh its vertex count, each new vertex the UV
        // and colour of the vertex it was split from, and the triangles (in the original's submeshes).
        void RebuildTornMesh(int vertexCount)
        {
            simulatedMesh.Clear();
            simulatedMesh.SetVertices(positions, 0, vertexCount);
            simulatedMesh.SetNormals(normals, 0, vertexCount);
            if (originalUv.Length > 0)
            {
                var uv = new Vector2[vertexCount];
                XpbdTornMesh.CopyBySource(originalUv, tornMesh.Sources, vertexCount, uv);
                simulatedMesh.SetUVs(0, uv);
            }
            if (originalColors.Length > 0)
            {
                var colors = new Color[vertexCount];
                XpbdTornMesh.CopyBySource(originalColors, tornMesh.Sources, vertexCount, colors);
                simulatedMesh.SetColors(colors);
            }
            // The library keeps the triangles in the order it was given them: submesh by submesh.
            simulatedMesh.subMeshCount = submeshTriangles.Length;
            int at = 0;
            for (int i = 0; i < submeshTriangles.Length; ++i)
            {
                var triangles = new int[submeshTriangles[i].Length];
                for (int k = 0; k < triangles.Length; ++k) triangles[k] = (int)tornMesh.Indices[at + k];
                at += triangles.Length;
                simulatedMesh.SetTriangles(triangles, i);
            }
        }

        static uint[] Union(uint[] a, uint[] b)
        {
            var all = new int[a.Length + b.Length];
            for (int i = 0; i < a.Length; ++i) all[i] = (int)a[i];
            for (int i = 0; i < b.Length; ++i) all[a.Length + i] = (int)b[i];
            return XpbdPinSelection.FromList(all, int.MaxValue);
        }

        XpbdClothDesc ClothDesc(int vertexCount)
        {
            XpbdClothDesc desc = XpbdCloth.DefaultDesc();
            desc.areal_density = arealDensity;
            desc.youngs_modulus = youngsModulus;
            desc.poisson_ratio = poissonRatio;
            desc.thickness = thickness;
            desc.linear_damping = linearDamping;
            desc.deformation_damping = deformationDamping;
            desc.max_stretch = maxStretch;
            desc.weld_tolerance = weldTolerance;
            desc.collision_thickness = collisionThickness;
            desc.ExternalAcceleration = new XpbdVector3(externalAcceleration.x, externalAcceleration.y, externalAcceleration.z);
            // Inter-cloth collision is not offered: each component simulates in a world of its own.
            XpbdClothSettings.SetSelfCollision(ref desc, selfCollision, selfCollisionRadius, selfStaticFriction, selfKineticFriction);
            XpbdClothSettings.SetRobustness(ref desc, inertiaScale, maxParticleSpeed, unstableRecovery);
            XpbdClothSettings.SetTearing(ref desc, tearable, vertexCount, maxExtraVertices, tearStrain);
            XpbdClothSettings.SetPressure(ref desc, pressure, volumeCompliance);
            desc.linear_inertia = linearInertia;
            desc.angular_inertia = angularInertia;
            desc.step_interval = (uint)stepInterval;
            return desc;
        }

        XpbdWorldDesc WorldDesc()
        {
            XpbdWorldDesc desc = XpbdWorld.DefaultDesc();
            desc.substeps = (uint)substeps;
            desc.iterations = (uint)iterations;
            desc.thread_count = 1; // one cloth per world: worker threads would only add overhead
            desc.Gravity = new XpbdVector3(gravity.x, gravity.y, gravity.z);
            return desc;
        }

        bool Running
        {
            // The lifecycle hooks may have destroyed the world under us (leaving play mode).
            get { return simulation != null && !simulation.World.IsDisposed; }
        }

        void Update()
        {
            if (!Running) return;
            selfPins.MoveAnchor(XpbdUnity.ToAffine(transform.localToWorldMatrix));
            for (int i = 0; i < anchorPins.Length; ++i)
            {
                if (transformPins[i].anchor != null) anchorPins[i].MoveAnchor(XpbdUnity.ToAffine(transformPins[i].anchor.localToWorldMatrix));
            }
            FollowColliders();
            XpbdAdvance frame = simulation.Advance(Time.deltaTime, Time.fixedDeltaTime, maxStepsPerFrame);
            alpha = frame.Alpha;
            if (frame.Recovered)
            {
                // The library already put the cloth back in its last good state (or rest pose);
                // report it and keep playing rather than stop the frame.
                Debug.LogWarning("xpbd_cloth: the explosion guard recovered the cloth (" + simulation.Cloth.TakeStatus().unstable_steps + " unstable step(s))", this);
            }
        }

        // Once, at enable: the listed colliders and those on the chosen layers, each once.
        void PushColliders()
        {
            var chosen = new List<Collider>();
            foreach (Collider c in colliders)
            {
                if (c != null && !chosen.Contains(c)) chosen.Add(c);
            }
            if (colliderLayers.value != 0)
            {
                foreach (Collider c in FindObjectsOfType<Collider>())
                {
                    if ((colliderLayers.value & (1 << c.gameObject.layer)) != 0 && !chosen.Contains(c)) chosen.Add(c);
                }
            }
            foreach (Collider c in chosen)
            {
                XpbdEngineShape shape;
                if (c.isTrigger || !c.enabled) continue;
                Transform t = c.transform;
                Quaternion q = t.rotation;
                try
                {
                    if (!XpbdUnity.TryGetShape(c, out shape) && !XpbdUnity.TryGetMeshShape(simulation.World, c, meshCellSize, out shape))
                    {
                        Debug.LogWarning(name + ": " + c.GetType().Name + " on " + c.name + " is not supported (Sphere, Capsule, Box and Mesh colliders are)", this);
                        continue;
                    }
                    trackedColliders.Add(simulation.AddCollider(shape, XpbdUnity.ToAffine(t.localToWorldMatrix), q.x, q.y, q.z, q.w, XpbdUnity.ContactOf(c)));
                    pushedColliders.Add(c);
                }
                catch (XpbdInvalidArgumentException e)
                {
                    // A zero-scaled or absurdly large collider: the rest of the scene still collides.
                    Debug.LogException(e, c);
                }
            }
        }

        // Every frame, before advancing: each collider's pose, reached by the end of the next step.
        // A destroyed Unity collider takes its native one with it.
        void FollowColliders()
        {
            for (int i = trackedColliders.Count - 1; i >= 0; --i)
            {
                Collider c = pushedColliders[i];
                if (c == null)
                {
                    trackedColliders[i].Dispose();
                    trackedColliders.RemoveAt(i);
                    pushedColliders.RemoveAt(i);
                    continue;
                }
                Transform t = c.transform;
                Quaternion q = t.rotation;
                trackedColliders[i].Follow(XpbdUnity.ToAffine(t.localToWorldMatrix), q.x, q.y, q.z, q.w);
            }
        }

        /// <summary>
        /// Change the level of detail at run time: step once every <paramref name="interval"/> fixed
        /// steps (1..16), e.g. from the camera distance; takes effect at the cloth's next step without
        /// a jump.
        /// </summary>
        public void SetStepInterval(int interval)
        {
            stepInterval = interval;
            if (Running) simulation.SetStepInterval(interval);
        }

        unsafe void LateUpdate()
        {
            if (!Running) return;
            XpbdAffine worldToLocal = XpbdUnity.ToAffine(transform.worldToLocalMatrix), localToWorld = XpbdUnity.ToAffine(transform.localToWorldMatrix);
            if (simulation.RenderProxy != null)
            {
                simulation.ReadProxyLocal(alpha, (IntPtr)positions.GetUnsafePtr(), (IntPtr)normals.GetUnsafePtr(), positions.Length, worldToLocal, localToWorld);
                simulatedMesh.SetVertices(positions);
                simulatedMesh.SetNormals(normals);
            }
            else
            {
                // A tearable cloth's vertex count follows its cuts: the topology version tells when.
                bool tore = tornMesh != null && tornMesh.Update();
                int count = tornMesh != null ? tornMesh.VertexCount : positions.Length;
                simulation.ReadLocal(alpha, (IntPtr)positions.GetUnsafePtr(), (IntPtr)normals.GetUnsafePtr(), count, worldToLocal, localToWorld);
                if (tore)
                {
                    RebuildTornMesh(count);
                }
                else
                {
                    simulatedMesh.SetVertices(positions, 0, count);
                    simulatedMesh.SetNormals(normals, 0, count);
                }
            }
            simulatedMesh.RecalculateBounds();
        }

        void Release()
        {
            if (simulation != null) simulation.Dispose();
            simulation = null;
            selfPins = null;
            anchorPins = new XpbdPinGroup[0];
            trackedColliders.Clear(); // destroyed with the simulation's world
            pushedColliders.Clear();
            if (positions.IsCreated) positions.Dispose();
            if (normals.IsCreated) normals.Dispose();
            tornMesh = null;
            if (meshFilter != null && originalMesh != null) meshFilter.sharedMesh = originalMesh;
            if (simulatedMesh != null) Destroy(simulatedMesh);
            simulatedMesh = null;
            ReleaseWorn();
        }

        // While selected and playing: the library's debug lines (gizmoLines) in world space.
        void DrawDebugLines()
        {
            if (!Running || gizmoLines == XpbdDebugFlags.None) return;
            int count = debugLines.Read(simulation.World, gizmoLines);
            float[] p = debugLines.Positions;
            for (int k = 0; k < count; ++k)
            {
                float r, g, b, a;
                debugLines.Color(k, out r, out g, out b, out a);
                Gizmos.color = new Color(r, g, b, a);
                Gizmos.DrawLine(new Vector3(p[6 * k], p[6 * k + 1], p[6 * k + 2]), new Vector3(p[6 * k + 3], p[6 * k + 4], p[6 * k + 5]));
            }
        }

        void Reset()
        {
            // The library's own defaults, so the Inspector starts where the C API does (the field
            // initialisers above are the same numbers, for when the library is not built yet).
            try
            {
                XpbdClothDesc d = XpbdCloth.DefaultDesc();
                arealDensity = d.areal_density;
                youngsModulus = d.youngs_modulus;
                poissonRatio = d.poisson_ratio;
                thickness = d.thickness;
                linearDamping = d.linear_damping;
                deformationDamping = d.deformation_damping;
                maxStretch = d.max_stretch;
                tearable = d.max_extra_vertices > 0;
                maxExtraVertices = (int)d.max_extra_vertices;
                pressure = d.pressure;
                volumeCompliance = d.volume_compliance;
                weldTolerance = d.weld_tolerance;
                collisionThickness = d.collision_thickness;
                selfCollision = d.enable_self_collision != 0;
                selfCollisionRadius = d.self_collision_radius;
                selfStaticFriction = d.self_static_friction;
                selfKineticFriction = d.self_kinetic_friction;
                inertiaScale = d.inertia_scale;
                maxParticleSpeed = d.max_particle_speed;
                unstableRecovery = (XpbdUnstableRecovery)d.unstable_recovery;
                stepInterval = (int)d.step_interval;
                XpbdWorldDesc w = XpbdWorld.DefaultDesc();
                substeps = (int)w.substeps;
                iterations = (int)w.iterations;
            }
            catch (Exception e)
            {
                Debug.LogException(e, this);
            }
        }
    }
}
