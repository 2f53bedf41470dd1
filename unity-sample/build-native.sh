#!/usr/bin/env bash
# Make this Unity package usable on this machine: build the native library for the host in
# release mode, copy it into Runtime/Plugins/<platform>/ (whose committed .meta files hold the
# import settings), and copy the C# bindings (bindings/csharp) into Runtime/Bindings/.
# Linux x86_64, macOS (universal when both Apple targets are installed with rustup) and Windows
# x86_64 (from Git Bash). Android and iOS libraries are cross-built: see Documentation~/index.md.
#
#   bash unity-sample/build-native.sh
set -euo pipefail
package="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$package")"
plugins="$package/Runtime/Plugins"
cd "$repo"

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64)
        cargo build --release --lib
        install -D -m 0755 target/release/libxpbd_cloth.so "$plugins/Linux/x86_64/libxpbd_cloth.so"
        ;;
    Darwin-*)
        targets="$(rustup target list --installed 2>/dev/null || true)"
        if grep -q x86_64-apple-darwin <<<"$targets" && grep -q aarch64-apple-darwin <<<"$targets"; then
            cargo build --release --lib --target x86_64-apple-darwin
            cargo build --release --lib --target aarch64-apple-darwin
            mkdir -p "$plugins/macOS"
            lipo -create -output "$plugins/macOS/libxpbd_cloth.dylib" \
                target/x86_64-apple-darwin/release/libxpbd_cloth.dylib \
                target/aarch64-apple-darwin/release/libxpbd_cloth.dylib
        else
            echo "note: building for this Mac's architecture only; for a universal library run" >&2
            echo "      rustup target add x86_64-apple-darwin aarch64-apple-darwin" >&2
            cargo build --release --lib
            install -D -m 0755 target/release/libxpbd_cloth.dylib "$plugins/macOS/libxpbd_cloth.dylib"
        fi
        ;;
    MINGW*-x86_64 | MSYS*-x86_64 | CYGWIN*-x86_64)
        cargo build --release --lib
        install -D target/release/xpbd_cloth.dll "$plugins/Windows/x86_64/xpbd_cloth.dll"
        ;;
    *)
        echo "build-native.sh: no plugin folder for $(uname -s) $(uname -m)" >&2
        exit 1
        ;;
esac

# The bindings: the generated raw layer and the hand-written one, folder layout kept.
rm -rf "$package/Runtime/Bindings"
(cd bindings/csharp && find . -name '*.cs' -print0 | while IFS= read -r -d '' file; do
    install -D -m 0644 "$file" "$package/Runtime/Bindings/$file"
done)
echo "unity-sample: native library in $(cd "$plugins" && find . -name '*xpbd_cloth*' ! -name '*.meta' | sed 's|^\./||' | tr '\n' ' ')and bindings in Runtime/Bindings"
