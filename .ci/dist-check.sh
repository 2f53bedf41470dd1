#!/usr/bin/env bash
# Makes the packages with scripts/dist.sh and uses them as their users would: the C package moved
# to another folder and consumed by a CMake project (find_package) and a C++ Makefile (pkg-config),
# each built shared and static and run; the Unity tarball unpacked and compiled as Unity would; the
# Godot addon's library paths resolved. Checks that no file names a folder of this machine.
# The Godot addon needs a godot-rust build (3 min 16 s fresh on 2 cores): only with XPBD_GODOT_CHECK=1.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
pass() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { echo "FAILED - $1" >&2; echo "dist: $passed passed, 1 failed"; exit 1; }

godot_flag=--no-godot
[ "${XPBD_GODOT_CHECK:-0}" = 1 ] && godot_flag=""
bash scripts/dist.sh --out "$work/dist" $godot_flag

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
abi="$(sed -n 's/^#define XPBD_ABI_VERSION \([0-9][0-9]*\)$/\1/p' include/xpbd_cloth.h)"
c_name="xpbd_cloth-$version-$(rustc -vV | sed -n 's/^host: //p')"
unity="$work/dist/com.xpbd.cloth-$version.tgz"

# 1. The outputs exist, and no file (archives unpacked; the Godot addon too when built) names this
# machine's folders.
for path in "$work/dist/$c_name" "$work/dist/$c_name.tar.gz" "$unity"; do
    [ -e "$path" ] || fail "dist.sh wrote no $path"
done
mkdir "$work/unpacked" "$work/unity"
tar -xzf "$work/dist/$c_name.tar.gz" -C "$work/unpacked"
tar -xzf "$unity" -C "$work/unity"
diff -r "$work/dist/$c_name" "$work/unpacked/$c_name" >/dev/null || fail "the C archive differs from its folder"
pass "the C package, its archive and the Unity tarball exist; the archive unpacks to the folder"
for folder in "$repo" "${CARGO_HOME:-$HOME/.cargo}" "${RUSTUP_HOME:-$HOME/.rustup}" "$HOME/" "$work"; do
    if found="$(grep -r -l -a -F "$folder" "$work/dist" "$work/unity")"; then
        fail "files name the build machine's folder $folder: $found"
    fi
done
pass "no file names a folder of the build machine"

# 2. The C package, moved elsewhere, consumed by a CMake project and by a C++ Makefile.
prefix="$work/elsewhere/$c_name"
mkdir -p "$work/elsewhere"
cp -a "$work/unpacked/$c_name" "$prefix"
[ "$(readlink "$prefix/lib/libxpbd_cloth.so")" = "libxpbd_cloth.so.$abi" ] || fail "libxpbd_cloth.so does not link to the soname file"
readelf -d "$prefix/lib/libxpbd_cloth.so.$abi" | grep -q "SONAME.*\[libxpbd_cloth.so.$abi\]" || fail "soname is not libxpbd_cloth.so.$abi"
pass "the shared library's soname is libxpbd_cloth.so.$abi"
needs_library() { readelf -d "$1" | grep -q "NEEDED.*libxpbd_cloth"; }
hash_of() { "$1" | sed -n 's/^state hash: //p'; }

cp -r examples/install/cmake "$work/cmake"
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake/build" >/dev/null
shared="$(hash_of "$work/cmake/build/free_fall")" || fail "the CMake program (shared) failed"
static="$(hash_of "$work/cmake/build/free_fall_static")" || fail "the CMake program (static) failed"
[ -n "$shared" ] && [ "$shared" = "$static" ] || fail "CMake: state hashes differ: '$shared' (shared) vs '$static' (static)"
needs_library "$work/cmake/build/free_fall" || fail "CMake: the shared build does not load libxpbd_cloth"
! needs_library "$work/cmake/build/free_fall_static" || fail "CMake: the static build needs libxpbd_cloth at run time"
pass "CMake find_package: free fall within 0.1 mm of the analytic drop, shared and static, same state hash"

# The version file: 0.1 and 0.1.0 are met, 0.2 and 1.0 are not, also before a language is enabled.
for request in "0.1 yes" "0.1.0 yes" "0.2 no" "1.0 no"; do
    set -- $request
    mkdir -p "$work/version-$1"
    printf 'cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(xpbd_cloth %s CONFIG REQUIRED)\n' "$1" \
        > "$work/version-$1/CMakeLists.txt"
    if cmake -S "$work/version-$1" -B "$work/version-$1/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
        [ "$2" = yes ] || fail "CMake: find_package(xpbd_cloth $1) accepted version $version"
    else
        [ "$2" = no ] || fail "CMake: find_package(xpbd_cloth $1) rejected version $version"
    fi
done
pass "CMake: the version file accepts 0.1 and 0.1.0 and rejects 0.2 and 1.0"

cp -r examples/install/pkg-config "$work/pkg-config"
make -s -C "$work/pkg-config" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" >/dev/null
shared="$(hash_of "$work/pkg-config/curtain")" || fail "the pkg-config program (shared) failed"
static="$(hash_of "$work/pkg-config/curtain_static")" || fail "the pkg-config program (static) failed"
[ -n "$shared" ] && [ "$shared" = "$static" ] || fail "pkg-config: state hashes differ: '$shared' vs '$static'"
! needs_library "$work/pkg-config/curtain_static" || fail "pkg-config: the static build needs libxpbd_cloth at run time"
[ "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion xpbd_cloth)" = "$version" ] || fail "pkg-config: wrong version"
pass "pkg-config: the C++ curtain hangs, shared and static (archive + libs_private only), same state hash"

# 3. The Unity tarball: a package.json of this version, a .meta for every asset and an asset for
# every .meta (Unity ignores files without one in an immutable package), unique GUIDs, the Linux
# library with its import settings, and the runtime compiles against the Unity API it uses.
pkg="$work/unity/package"
python3 - "$pkg/package.json" "$version" <<'EOF' || fail "package.json is not a valid package of this version"
import json, sys
package = json.load(open(sys.argv[1]))
assert package["version"] == sys.argv[2], package["version"]
assert package["name"] == "com.xpbdcloth.cloth", package["name"]
assert package["unity"] and package["displayName"]
EOF
while IFS= read -r asset; do
    [ -e "$asset.meta" ] || fail "Unity: $asset has no .meta"
done < <(find "$pkg/Runtime" -mindepth 1 ! -name '*.meta')
while IFS= read -r meta; do
    [ -e "${meta%.meta}" ] || fail "Unity: $meta has no asset"
done < <(find "$pkg" -name '*.meta')
duplicates="$(find "$pkg" -name '*.meta' -exec sed -n 's/^guid: //p' {} + | sort | uniq -d)"
[ -z "$duplicates" ] || fail "Unity: GUIDs used twice: $duplicates"
plugin="$pkg/Runtime/Plugins/Linux/x86_64/libxpbd_cloth.so"
readelf -d "$plugin" | grep -q "SONAME.*libxpbd_cloth" || fail "Unity: the plugin is not the library"
grep -A4 "Standalone: Linux64" "$plugin.meta" | grep -q "enabled: 1" || fail "Unity: the plugin is not enabled for Linux64"
grep -A6 "Editor: Editor" "$plugin.meta" | grep -q "OS: Linux" || fail "Unity: the plugin is not set for the Linux editor"
pass "Unity: package.json, a .meta for every asset, unique GUIDs, the Linux plugin enabled for Linux64 and the editor"
mcs -target:library -unsafe -warnaserror+ -nologo -out:"$work/unity-tarball.dll" \
    -recurse:"$pkg/Runtime/*.cs" tests/csharp/UnityStubs.cs
pass "Unity: the tarball's Runtime compiles with Mono against the Unity stubs"

# 4. The Godot addon: every library its .gdextension names exists in the addon and is the extension.
if [ -z "$godot_flag" ]; then
    addon="$work/dist/xpbd_cloth-godot-$version/addons/xpbd_cloth"
    libraries="$(sed -n 's|^[a-z0-9._]* = "res://addons/xpbd_cloth/\(.*\)"$|\1|p' "$addon/xpbd_cloth.gdextension")"
    [ -n "$libraries" ] || fail "Godot: the .gdextension names no library"
    for library in $libraries; do
        [ -f "$addon/$library" ] || fail "Godot: $library is not in the addon"
        nm -D --defined-only "$addon/$library" | grep -q " gdext_rust_init$" || fail "Godot: $library has no entry symbol"
    done
    pass "Godot: the addon's .gdextension names libraries that exist and export gdext_rust_init"
else
    echo "skipped - the Godot addon (XPBD_GODOT_CHECK=1 builds and checks it)"
fi
echo "dist: $passed passed, 0 failed"
