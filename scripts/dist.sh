#!/usr/bin/env bash
# Make the installable packages of this machine's platform (Linux) into DIR:
#   DIR/xpbd_cloth-<version>-<target>/        C/C++: header, shared (soname with the ABI version) and
#                                              static library, pkg-config file, CMake package
#   DIR/xpbd_cloth-<version>-<target>.tar.gz   the same folder as one archive
#   DIR/com.xpbd.cloth-<version>.tgz           the Unity package with its native library (UPM tarball)
#   DIR/xpbd_cloth-godot-<version>/addons/xpbd_cloth/   the Godot extension and its library (+ .tar.gz)
# Release builds with the build machine's paths remapped, so no file names a folder of this
# machine; the archives are reproducible (sorted, owner 0, the last commit's time).
#
#   bash scripts/dist.sh --out DIR [--no-godot]
#
# --no-godot skips the Godot addon and its godot-rust build (3 min 16 s fresh on 2 cores).
# Other platforms: docs/install.md (cross-building commands and what was built here).
set -euo pipefail

usage() { echo "usage: bash scripts/dist.sh --out DIR [--no-godot]" >&2; exit 2; }
out="" godot=1
while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
        --no-godot) godot=0; shift ;;
        -h | --help) usage ;;
        *) echo "dist.sh: unknown argument '$1'" >&2; usage ;;
    esac
done
[ -n "$out" ] || usage

repo="$(cd "$(dirname "$0")/.." && pwd)"
templates="$repo/scripts/dist"
cd "$repo"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
abi="$(sed -n 's/^#define XPBD_ABI_VERSION \([0-9][0-9]*\)$/\1/p' include/xpbd_cloth.h)"
target="$(rustc -vV | sed -n 's/^host: //p')"
[ -n "$version" ] && [ -n "$abi" ] || { echo "dist.sh: no version in Cargo.toml or ABI in the header" >&2; exit 1; }
case "$target" in
    x86_64-unknown-linux-gnu) unity_plugin="Runtime/Plugins/Linux/x86_64" godot_arch="x86_64" ;;
    aarch64-unknown-linux-gnu) unity_plugin="" godot_arch="arm64" ;;
    *) echo "dist.sh: packages are made on Linux; for $target see docs/install.md" >&2; exit 1 ;;
esac
soname="libxpbd_cloth.so.$abi"
epoch="$(git log -1 --format=%ct 2>/dev/null || echo 0)"

# Remap this machine's folders in panic locations and debug line tables (RUSTFLAGS reach every
# crate of the build, so the builds go to their own target folders and leave the others fresh).
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
remap="--remap-path-prefix=$repo=xpbd_cloth --remap-path-prefix=$cargo_home=cargo"
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
remap="$remap --remap-path-prefix=$rustup_home=rustup"

# Deterministic archive of folder $2 (relative to $1) into file $3.
archive() {
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$1" -cf - "$2" | gzip -n -9 > "$3"
}

# ---- The C/C++ package ----------------------------------------------------------------------
echo "dist: building the C library (release)"
notes="$(mktemp)"
trap 'rm -f "$notes"' EXIT
RUSTFLAGS="$remap" CARGO_TARGET_DIR="$repo/target/dist" \
    cargo rustc --release --lib --crate-type cdylib,staticlib --message-format short \
    -- -C "link-arg=-Wl,-soname,$soname" --print native-static-libs 2>&1 | tee "$notes"
libs_private="$(sed -n 's/.*native-static-libs: //p' "$notes" | tail -n 1)"
[ -n "$libs_private" ] || { echo "dist.sh: rustc printed no native-static-libs" >&2; exit 1; }
built="$repo/target/dist/release"

c_name="xpbd_cloth-$version-$target"
c_dir="$out/$c_name"
rm -rf "$c_dir"
install -D -m 0644 include/xpbd_cloth.h "$c_dir/include/xpbd_cloth.h"
# Shipped without debug information (the line tables of the release profile are for our own
# builds): the shared library is a fifth of the size, and so is what Unity puts into players.
install -D -m 0755 "$built/libxpbd_cloth.so" "$c_dir/lib/$soname"
install -D -m 0644 "$built/libxpbd_cloth.a" "$c_dir/lib/libxpbd_cloth.a"
strip --strip-debug "$c_dir/lib/$soname" "$c_dir/lib/libxpbd_cloth.a"
ln -s "$soname" "$c_dir/lib/libxpbd_cloth.so"
link_libraries="$(sed 's/-l//g; s/  */;/g' <<<"$libs_private")"
fill() { # template → file, with the package's facts substituted
    sed -e "s|@VERSION@|$version|g" -e "s|@ABI@|$abi|g" -e "s|@SONAME@|$soname|g" \
        -e "s|@TARGET@|$target|g" -e "s|@LIBS_PRIVATE@|$libs_private|g" \
        -e "s|@LINK_LIBRARIES@|$link_libraries|g" "$templates/$1" > "$2"
}
mkdir -p "$c_dir/lib/pkgconfig" "$c_dir/lib/cmake/xpbd_cloth"
fill xpbd_cloth.pc.in "$c_dir/lib/pkgconfig/xpbd_cloth.pc"
fill xpbd_clothConfig.cmake.in "$c_dir/lib/cmake/xpbd_cloth/xpbd_clothConfig.cmake"
fill xpbd_clothConfigVersion.cmake.in "$c_dir/lib/cmake/xpbd_cloth/xpbd_clothConfigVersion.cmake"
mkdir -p "$c_dir/share/doc/xpbd_cloth"
fill README.md.in "$c_dir/share/doc/xpbd_cloth/README.md"
install -m 0644 LICENSE-MIT LICENSE-APACHE "$c_dir/share/doc/xpbd_cloth/"
archive "$out" "$c_name" "$out/$c_name.tar.gz"
echo "dist: $c_dir (+ .tar.gz)"

# ---- The Unity package ----------------------------------------------------------------------
# The committed package, the native library and the C# bindings, with a .meta for every asset:
# Unity ignores files without one in an immutable (tarball) package. The bindings' .meta files are
# made here with GUIDs derived from their paths, so they are the same in every build.
if [ -n "$unity_plugin" ]; then
    stage="$(mktemp -d)"
    trap 'rm -f "$notes"; rm -rf "$stage"' EXIT
    pkg="$stage/package"
    git ls-files unity-sample | while IFS= read -r file; do
        install -D -m 0644 "$file" "$pkg/${file#unity-sample/}"
    done
    rm -f "$pkg/build-native.sh" "$pkg/build-native.sh.meta" "$pkg/.gitignore" # the library is in
    install -D -m 0755 "$c_dir/lib/$soname" "$pkg/$unity_plugin/libxpbd_cloth.so"
    guid() { printf 'com.xpbdcloth.cloth/%s' "$1" | md5sum | cut -c1-32; }
    # The .meta of asset $1: the GUID of package path $2 and the importer lines $3 (escapes read).
    meta() {
        printf 'fileFormatVersion: 2\nguid: %s\n%b  userData: \n  assetBundleName: \n  assetBundleVariant: \n' \
            "$(guid "$2")" "$3" > "$1.meta"
    }
    (cd bindings/csharp && find . -name '*.cs' | sort) | while IFS= read -r file; do
        file="${file#./}"
        install -D -m 0644 "bindings/csharp/$file" "$pkg/Runtime/Bindings/$file"
        meta "$pkg/Runtime/Bindings/$file" "Runtime/Bindings/$file" 'MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n'
    done
    for licence in LICENSE-MIT LICENSE-APACHE; do
        install -m 0644 "$licence" "$pkg/$licence"
        meta "$pkg/$licence" "$licence" 'DefaultImporter:\n  externalObjects: {}\n'
    done
    (cd "$pkg" && find Runtime/Bindings -type d | sort) | while IFS= read -r folder; do
        meta "$pkg/$folder" "$folder" 'folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n'
    done
    # Drop the import settings of platforms not built here, and the folders they leave empty.
    while :; do
        changed=0
        while IFS= read -r meta; do
            [ -e "${meta%.meta}" ] || { rm "$meta"; changed=1; }
        done < <(find "$pkg" -name '*.meta')
        if [ -n "$(find "$pkg" -mindepth 1 -type d -empty)" ]; then
            find "$pkg" -mindepth 1 -depth -type d -empty -delete
            changed=1
        fi
        [ "$changed" = 1 ] || break
    done
    unity_file="$out/com.xpbd.cloth-$version.tgz"
    archive "$stage" package "$unity_file"
    echo "dist: $unity_file"
else
    echo "dist: no Unity import settings for $target; Unity package skipped"
fi

# ---- The Godot addon ------------------------------------------------------------------------
godot_dir="$out/xpbd_cloth-godot-$version"
if [ "$godot" = 1 ]; then
    echo "dist: building the Godot extension (release)"
    (cd bindings/godot && RUSTFLAGS="$remap" CARGO_TARGET_DIR="$repo/bindings/godot/target/dist" \
        cargo build --release --lib --message-format short)
    addon="$godot_dir/addons/xpbd_cloth"
    library="libxpbd_cloth_godot.linux.$godot_arch.so"
    rm -rf "$godot_dir"
    install -D -m 0755 "bindings/godot/target/dist/release/libxpbd_cloth_godot.so" "$addon/bin/$library"
    strip --strip-debug "$addon/bin/$library"
    # The committed .gdextension's [configuration], with [libraries] pointing into the addon (release
    # builds for the editor and both export kinds).
    {
        echo "; The XpbdCloth3D node for Godot 4.3+ (docs/godot.md), made by scripts/dist.sh."
        sed -n '/^\[configuration\]/,/^\[libraries\]/p' bindings/godot/xpbd_cloth.gdextension | sed '$d'
        echo "[libraries]"
        echo "linux.debug.$godot_arch = \"res://addons/xpbd_cloth/bin/$library\""
        echo "linux.release.$godot_arch = \"res://addons/xpbd_cloth/bin/$library\""
    } > "$addon/xpbd_cloth.gdextension"
    install -m 0644 LICENSE-MIT LICENSE-APACHE "$addon/"
    archive "$out" "xpbd_cloth-godot-$version" "$out/xpbd_cloth-godot-$version.tar.gz"
    echo "dist: $godot_dir (+ .tar.gz)"
else
    echo "dist: Godot addon skipped (--no-godot)"
fi
