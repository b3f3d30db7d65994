#!/usr/bin/env bash
# Castor's programs installed like a Linux tool (`make install`, `make uninstall`, `make deb`).
#   scripts/package.sh build                    release builds of castctl, cast-receiver and audiocast with the
#                                               static Swift standard library (they run where no Swift toolchain
#                                               is), and argument-parser's generate-manual tool
#   scripts/package.sh install DESTDIR PREFIX   lays them out under DESTDIR/PREFIX: bin/, share/man/man1/*.1 (made
#                                               by generate-manual from each program's --experimental-dump-help),
#                                               bash, zsh and fish completions (--generate-completion-script)
#   scripts/package.sh uninstall DESTDIR PREFIX removes exactly what install lays out
#   scripts/package.sh deb OUTDIR               a Debian package of them (PREFIX /usr) in OUTDIR; prints its path
# Environment: SWIFT (swift), CONFIGURATION (release; `debug` reuses the debug build, for tests that check the
# layout and not the optimiser), SCRATCH (.build, SwiftPM's scratch path), DEB_COMPRESSION and
# DEB_COMPRESSION_LEVEL (xz, 6: dpkg-deb -Z and -z; the tests use gzip 1, since xz over hundreds of MiB of debug
# binaries takes minutes), DEB_MAINTAINER (the Maintainer field).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
CONFIGURATION=${CONFIGURATION:-release}
SCRATCH=${SCRATCH:-.build}
PROGRAMS=(castctl cast-receiver audiocast)
PACKAGE=castor-tools
MAINTAINER=${DEB_MAINTAINER:-Castor for Linux <castor-for-linux@example.org>}
say() { echo "package: $*" >&2; }

# Where `build` leaves the programs (no SwiftPM call: a test may run this while `swift test` holds .build).
bin_dir() { echo "$SCRATCH/castor-programs-$CONFIGURATION"; }
manual_tool() { echo "$SCRATCH/argument-parser-tools/debug/generate-manual"; }

build() {
    local started=$SECONDS
    # A debug build keeps every archive member it pulls in (release links drop unused sections), and
    # Foundation's static archives then need CoreFoundation, _FoundationCollections and _FoundationCShims, which
    # the toolchain's link arguments leave out (only objects compiled against the static Foundation name them).
    local extra=()
    [ "$CONFIGURATION" = release ] || extra=(-Xlinker -lCoreFoundation -Xlinker -l_FoundationCollections -Xlinker -l_FoundationCShims)
    # The static debug build has a scratch folder of its own: it compiles modules against the static Foundation,
    # and an ordinary build that later links in the same folder asks for libCoreFoundation.so (CI failed so).
    # A release build differs in every object anyway.
    local scratch="$SCRATCH"
    [ "$CONFIGURATION" = release ] || scratch="$SCRATCH/static-$CONFIGURATION"
    local built="$scratch/$CONFIGURATION" stage
    stage=$(bin_dir)
    mkdir -p "$stage"
    for program in "${PROGRAMS[@]}"; do
        say "building $program ($CONFIGURATION, static Swift standard library)…"
        "$SWIFT" build -c "$CONFIGURATION" --scratch-path "$scratch" --static-swift-stdlib "${extra[@]}" --product "$program"
        cp "$built/$program" "$stage/$program.tmp" && mv "$stage/$program.tmp" "$stage/$program"
    done
    # generate-manual is swift-argument-parser's own tool (what its generate-manual plugin runs), built from the
    # resolved checkout as a root package of its own: the plugin would build every product of this package first.
    local parser="$SCRATCH/checkouts/swift-argument-parser"
    [ -d "$parser" ] || "$SWIFT" package --scratch-path "$SCRATCH" resolve
    say "building generate-manual (swift-argument-parser)…"
    "$SWIFT" build --package-path "$parser" --scratch-path "$SCRATCH/argument-parser-tools" --product generate-manual
    say "built in $((SECONDS - started)) s"
}

# install ROOT PREFIX [ZSHDIR]: ROOT is DESTDIR (may be empty), ZSHDIR the zsh completions folder under PREFIX.
install_tree() {
    local root=$1 prefix=$2 zsh=${3:-share/zsh/site-functions}
    local bin
    bin=$(bin_dir)
    local tool
    tool=$(manual_tool)
    for program in "${PROGRAMS[@]}"; do
        [ -x "$bin/$program" ] || { echo "package: $bin/$program is not built (run: make release)" >&2; exit 1; }
    done
    [ -x "$tool" ] || { echo "package: $tool is not built (run: make release)" >&2; exit 1; }
    local date
    date=$(scripts/version.sh | cut -d' ' -f3)
    local dest="$root$prefix"
    install -d "$dest/bin" "$dest/share/man/man1" "$dest/share/bash-completion/completions" "$dest/$zsh" \
        "$dest/share/fish/vendor_completions.d"
    for program in "${PROGRAMS[@]}"; do
        install -m 0755 "$bin/$program" "$dest/bin/$program"
        strip --strip-unneeded "$dest/bin/$program"
        "$tool" "$bin/$program" --date "$date" --output-directory "$dest/share/man/man1" >/dev/null
        # generate-manual keeps a discussion's blank lines, which mdoc warns about: they are paragraph breaks.
        sed -i 's/^$/.Pp/' "$dest/share/man/man1/$program.1"
        chmod 0644 "$dest/share/man/man1/$program.1"
        # bash-completion sources the file: no #! line.
        "$bin/$program" --generate-completion-script bash | sed '1{/^#!/d}' > "$dest/share/bash-completion/completions/$program"
        "$bin/$program" --generate-completion-script zsh > "$dest/$zsh/_$program"
        "$bin/$program" --generate-completion-script fish > "$dest/share/fish/vendor_completions.d/$program.fish"
    done
    say "installed ${PROGRAMS[*]} under $dest"
}

uninstall_tree() {
    local root=$1 prefix=$2
    local dest="$root$prefix"
    for program in "${PROGRAMS[@]}"; do
        rm -f "$dest/bin/$program" "$dest/share/man/man1/$program.1" "$dest/share/man/man1/$program.1.gz" \
            "$dest/share/bash-completion/completions/$program" "$dest/share/zsh/site-functions/_$program" \
            "$dest/share/zsh/vendor-completions/_$program" "$dest/share/fish/vendor_completions.d/$program.fish"
    done
    say "removed ${PROGRAMS[*]} from $dest"
}

deb() {
    local out=$1
    local version commit date
    read -r version commit date < <(scripts/version.sh)
    local arch
    arch=$(dpkg --print-architecture)
    local work
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    local root="$work/root"
    install_tree "$root" /usr share/zsh/vendor-completions
    gzip -9n "$root"/usr/share/man/man1/*.1
    local doc="$root/usr/share/doc/$PACKAGE"
    install -d "$doc"
    cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Castor for Linux
Comment: Built from commit $commit.

Files: *
Copyright: ${date%%-*} The Castor for Linux authors
License: unspecified
 The project has not chosen a licence yet; until it does, see its repository.
COPYRIGHT
    # A native package (no Debian revision): changelog.gz.
    printf '%s (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
        "$PACKAGE" "$version" "$commit" "$MAINTAINER" "$(date -R -d "$date")" | gzip -9n > "$doc/changelog.gz"
    chmod 0644 "$doc/copyright" "$doc/changelog.gz"
    # What the binaries link, as Debian names it (dpkg-shlibdeps reads their NEEDED entries and the shlibs files).
    mkdir -p "$work/debian"
    printf 'Source: castor\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" > "$work/debian/control"
    local depends
    depends=$(cd "$work" && dpkg-shlibdeps -O "${PROGRAMS[@]/#/-eroot/usr/bin/}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
    rm -rf "$work/debian"
    install -d "$root/DEBIAN"
    cat > "$root/DEBIAN/control" <<CONTROL
Package: $PACKAGE
Version: $version
Architecture: $arch
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: ffmpeg, espeak-ng, avahi-daemon
Section: net
Priority: optional
Description: Google Cast tools for Linux: castctl, cast-receiver, audiocast
 castctl finds Cast devices, controls playback, queues and volume, casts
 local files, saves and restores what plays, and speaks announcements.
 cast-receiver is an emulated Cast device for testing senders without
 hardware; audiocast is a podcast player that suggests new episodes.
 .
 Built from commit $commit.
CONTROL
    (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
    mkdir -p "$out"
    local file="$out/${PACKAGE}_${version}_${arch}.deb"
    dpkg-deb --root-owner-group "-Z${DEB_COMPRESSION:-xz}" "-z${DEB_COMPRESSION_LEVEL:-6}" --build "$root" "$file" >/dev/null
    say "built $file (Depends: $depends)"
    echo "$file"
}

case "${1:-}" in
    build) build ;;
    install) install_tree "${2:-}" "${3:-/usr/local}" ;;
    uninstall) uninstall_tree "${2:-}" "${3:-/usr/local}" ;;
    deb) deb "${2:-.build/deb}" ;;
    *) echo "usage: scripts/package.sh build | install DESTDIR PREFIX | uninstall DESTDIR PREFIX | deb OUTDIR" >&2; exit 64 ;;
esac
