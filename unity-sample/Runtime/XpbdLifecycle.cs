// Native objects must never outlive the managed objects that own them. The editor keeps native
// plugins loaded across domain reloads and play sessions, so ids of a previous session would
// leak (or, without generations, dangle): everything is destroyed at each of those boundaries.
using UnityEngine;
#if UNITY_EDITOR
using UnityEditor;
#endif

namespace Xpbd.Unity
{
    /// <summary>Destroys every native world and cloth before an assembly reload, when leaving play mode and on quit.</summary>
    public static class XpbdLifecycle
    {
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        static void RegisterPlayer()
        {
            // -= first: with domain reload disabled this runs again in the same domain.
            Application.quitting -= DisposeAll;
            Application.quitting += DisposeAll;
        }

#if UNITY_EDITOR
        [InitializeOnLoadMethod]
        static void RegisterEditor()
        {
            AssemblyReloadEvents.beforeAssemblyReload -= DisposeAll;
            AssemblyReloadEvents.beforeAssemblyReload += DisposeAll;
            EditorApplication.playModeStateChanged -= OnPlayModeStateChanged;
            EditorApplication.playModeStateChanged += OnPlayModeStateChanged;
        }

        static void OnPlayModeStateChanged(PlayModeStateChange change)
        {
            if (change == PlayModeStateChange.ExitingPlayMode) DisposeAll();
        }
#endif

        /// <summary>Dispose every live XpbdWorld (and so every cloth). Components notice and stop stepping.</summary>
        public static void DisposeAll()
        {
            XpbdWorld.DisposeAll();
        }
    }
}
