#!/usr/bin/env bash
# Installs the CBMC bounded model checker (>= 5.12) on Debian or Ubuntu, as
# root, from the distribution's packages; optionally adds a faster SAT solver.
#
# - Where the configured apt suites have a `cbmc` package (Ubuntu, Debian 11,
#   Debian >= 13) it installs that package.
# - Debian 12 (bookworm) has none: the script adds the previous stable suite
#   (bullseye, main component only) from the mirror already configured in the
#   machine's apt sources, pins it at low priority so that no other package
#   changes, and installs `cbmc` (5.12) from it.
# - Should that suite be gone from the mirror, it falls back to CBMC 6 from
#   Debian 13 (trixie) without touching the system libraries: a private apt
#   configuration downloads cbmc with trixie's libc6, libstdc++6 and
#   libgcc-s1, unpacks them under $LAZYSMA_CBMC_PREFIX (/opt/lazysma-cbmc),
#   and a `cbmc` wrapper in $LAZYSMA_CBMC_BIN_DIR (/usr/local/bin) runs it
#   through trixie's dynamic loader.
# - It then tries to install `cadical` and `kissat` (external SAT solvers for
#   `lazysma verify --sat-solver`) and carries on when they are unavailable
#   (the test suite requires `cadical` under CI=true).
#
# Idempotent: when a recent enough `cbmc` is already on PATH the script only
# prints its version (and installs a SAT solver if none is present).
#
# Usage: sudo bash scripts/install-cbmc.sh
# Environment: LAZYSMA_SKIP_SAT_SOLVER=1 skips the optional SAT solver;
#   LAZYSMA_CBMC_ROUTE=trixie-private forces the fallback route on Debian.
set -euo pipefail

readonly MIN_MAJOR=5
readonly MIN_MINOR=12
readonly PIN_NAME=lazysma-bullseye
readonly SOURCES_FILE=/etc/apt/sources.list.d/${PIN_NAME}.sources
readonly PREFERENCES_FILE=/etc/apt/preferences.d/${PIN_NAME}

readonly PRIVATE_PREFIX=${LAZYSMA_CBMC_PREFIX:-/opt/lazysma-cbmc}
readonly PRIVATE_BIN_DIR=${LAZYSMA_CBMC_BIN_DIR:-/usr/local/bin}

APT_UPDATED=0

say() { printf 'install-cbmc: %s\n' "$*"; }
die() { printf 'install-cbmc: error: %s\n' "$*" >&2; exit 1; }

# Prints "MAJOR MINOR" of the first `cbmc` on PATH, or nothing.
cbmc_version() {
    local text
    text=$(cbmc --version 2>/dev/null | head -n 1) || return 0
    if [[ $text =~ ([0-9]+)\.([0-9]+) ]]; then
        printf '%s %s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    fi
}

# True when a `cbmc` on PATH reports a version >= MIN_MAJOR.MIN_MINOR.
cbmc_is_recent() {
    command -v cbmc >/dev/null 2>&1 || return 1
    local version major minor
    version=$(cbmc_version)
    [[ -n $version ]] || return 1
    read -r major minor <<<"$version"
    (( major > MIN_MAJOR || (major == MIN_MAJOR && minor >= MIN_MINOR) ))
}

apt_update_once() {
    if (( APT_UPDATED == 0 )); then
        say "running apt-get update"
        apt-get update -q >/dev/null || die "apt-get update failed; check the apt sources and the network"
        APT_UPDATED=1
    fi
}

# Prints the candidate version apt would install for package $1, or nothing.
apt_candidate() {
    apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2; exit }'
}

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

os_field() {
    # Prints field $1 of /etc/os-release (unquoted), or nothing.
    [[ -r /etc/os-release ]] || return 0
    (
        # shellcheck disable=SC1091
        . /etc/os-release
        printf '%s\n' "${!1:-}"
    )
}

# Prints "URI<TAB>SIGNED_BY" of the first apt source that serves suite $1
# (deb822 `*.sources` files first, then one-line `*.list` files).
debian_mirror_for_suite() {
    local suite=$1 file
    shopt -s nullglob
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ $file == "$SOURCES_FILE" ]] && continue
        awk -v suite="$suite" '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "") {
                    split(uris, u, " "); printf "%s\t%s\n", u[1], signed; found = 1; exit
                }
                types = ""; suites = ""; uris = ""; signed = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^Types:/      { sub(/^Types:[ \t]*/, "");      types = $0 }
            /^Suites:/     { sub(/^Suites:[ \t]*/, "");     suites = $0 }
            /^URIs:/       { sub(/^URIs:[ \t]*/, "");       uris = $0 }
            /^Signed-By:/  { sub(/^Signed-By:[ \t]*/, "");  signed = $0 }
            END { if (!found) flush() }
        ' "$file" | head -n 1 | grep . && return 0
    done
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -r $file ]] || continue
        awk -v suite="$suite" '
            $1 != "deb" { next }
            {
                i = 2; signed = ""
                if ($i ~ /^\[/) {
                    while (i <= NF) {
                        if ($i ~ /^\[?signed-by=/) { s = $i; sub(/^\[?signed-by=/, "", s); sub(/\]$/, "", s); signed = s }
                        if ($i ~ /\]$/) { i++; break }
                        i++
                    }
                }
                if ($(i + 1) == suite) { printf "%s\t%s\n", $i, signed; exit }
            }
        ' "$file" | head -n 1 | grep . && return 0
    done
    return 1
}

# Debian 12: adds bullseye (main) with a low pin and installs cbmc from it.
install_from_previous_stable() {
    local codename=$1 previous=$2 mirror uri signed
    mirror=$(debian_mirror_for_suite "$codename") \
        || die "no apt source for suite '$codename' found in /etc/apt/sources.list or /etc/apt/sources.list.d; cannot derive a mirror for '$previous'"
    uri=${mirror%%$'\t'*}
    signed=${mirror#*$'\t'}
    if [[ -z $signed && -r /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
        signed=/usr/share/keyrings/debian-archive-keyring.gpg
    fi
    say "adding suite '$previous' from $uri (pinned at priority 100)"
    {
        printf '# Added by lazysma scripts/install-cbmc.sh: CBMC is not packaged for %s.\n' "$codename"
        printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n' "$uri" "$previous"
        [[ -n $signed ]] && printf 'Signed-By: %s\n' "$signed"
    } >"$SOURCES_FILE"
    cat >"$PREFERENCES_FILE" <<EOF
# Added by lazysma scripts/install-cbmc.sh: packages of $previous are used
# only when asked for explicitly (cbmc); nothing else changes.
Package: *
Pin: release n=$previous
Pin-Priority: 100
EOF
    say "running apt-get update"
    if ! apt-get update -q >/dev/null || [[ -z $(apt_candidate cbmc) ]]; then
        # Leave the machine's apt configuration as it was.
        rm -f "$SOURCES_FILE" "$PREFERENCES_FILE"
        apt-get update -q >/dev/null || true
        say "suite '$previous' at $uri is unreachable or has no 'cbmc' package; trying the trixie route"
        install_trixie_private "$uri" "$signed"
        return
    fi
    say "installing cbmc from $previous"
    apt_install -t "$previous" cbmc || die "apt-get install -t $previous cbmc failed"
}

# Prints "MULTIARCH-TRIPLET DYNAMIC-LOADER" for the machine, or fails.
loader_for_architecture() {
    case "$(dpkg --print-architecture)" in
        amd64) printf 'x86_64-linux-gnu ld-linux-x86-64.so.2\n' ;;
        arm64) printf 'aarch64-linux-gnu ld-linux-aarch64.so.1\n' ;;
        *) return 1 ;;
    esac
}

# CBMC 6 from trixie with trixie's C and C++ runtime in a private directory,
# started through trixie's dynamic loader; the system's libraries and apt
# configuration stay as they are.
install_trixie_private() {
    local uri=$1 signed=$2 triplet loader
    read -r triplet loader < <(loader_for_architecture) \
        || die "the trixie route supports amd64 and arm64 only; install CBMC >= ${MIN_MAJOR}.${MIN_MINOR} by hand"
    local needed=() package
    for package in gcc minisat; do
        dpkg -s "$package" >/dev/null 2>&1 || needed+=("$package")
    done
    if (( ${#needed[@]} > 0 )); then
        apt_install "${needed[@]}" || die "apt-get install ${needed[*]} failed"
    fi
    TRIXIE_WORK=$(mktemp -d)
    trap 'rm -rf "$TRIXIE_WORK"' EXIT
    local work=$TRIXIE_WORK
    mkdir -p "$work/parts" "$work/prefs" "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
    {
        printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\n' "$uri"
        if [[ -n $signed ]]; then printf 'Signed-By: %s\n' "$signed"; fi
    } >"$work/parts/trixie.sources"
    local private=(
        -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/parts"
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$work/prefs"
        -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
        -o "APT::Sandbox::User=root"
    )
    say "downloading cbmc and its runtime libraries from trixie at $uri (private apt configuration)"
    apt-get "${private[@]}" update -q >/dev/null \
        || die "cannot read suite 'trixie' at $uri; install CBMC >= ${MIN_MAJOR}.${MIN_MINOR} by hand"
    (cd "$work/debs" && apt-get "${private[@]}" download cbmc libc6 libstdc++6 libgcc-s1 >/dev/null 2>&1) \
        || die "downloading cbmc from trixie failed"
    rm -rf "$PRIVATE_PREFIX.new"
    mkdir -p "$PRIVATE_PREFIX.new"
    local deb
    for deb in "$work"/debs/*.deb; do
        dpkg-deb -x "$deb" "$PRIVATE_PREFIX.new" || die "cannot unpack $deb"
    done
    rm -rf "$PRIVATE_PREFIX"
    mv "$PRIVATE_PREFIX.new" "$PRIVATE_PREFIX"
    local lib="$PRIVATE_PREFIX/usr/lib/$triplet"
    [[ -x $lib/$loader && -x $PRIVATE_PREFIX/usr/bin/cbmc ]] || die "the unpacked trixie packages lack $loader or cbmc"
    mkdir -p "$PRIVATE_BIN_DIR"
    {
        printf '#!/bin/sh\n'
        printf '# CBMC from Debian trixie with its own C/C++ runtime (scripts/install-cbmc.sh).\n'
        printf 'exec "%s" --library-path "%s" "%s" "$@"\n' "$lib/$loader" \
            "$lib:/lib/$triplet:/usr/lib/$triplet:/lib:/usr/lib" "$PRIVATE_PREFIX/usr/bin/cbmc"
    } >"$PRIVATE_BIN_DIR/cbmc.new"
    chmod 755 "$PRIVATE_BIN_DIR/cbmc.new"
    mv "$PRIVATE_BIN_DIR/cbmc.new" "$PRIVATE_BIN_DIR/cbmc"
    "$PRIVATE_BIN_DIR/cbmc" --version >/dev/null 2>&1 || die "$PRIVATE_BIN_DIR/cbmc does not run"
    say "installed $PRIVATE_BIN_DIR/cbmc ($("$PRIVATE_BIN_DIR/cbmc" --version | head -n 1))"
}

install_cbmc() {
    command -v apt-get >/dev/null 2>&1 \
        || die "this script supports Debian and Ubuntu (apt-get not found); install CBMC >= ${MIN_MAJOR}.${MIN_MINOR} with your distribution's package manager"
    apt_update_once
    local candidate id codename mirror
    id=$(os_field ID)
    codename=$(os_field VERSION_CODENAME)
    if [[ ${LAZYSMA_CBMC_ROUTE:-auto} == trixie-private ]]; then
        mirror=$(debian_mirror_for_suite "$codename") || die "no apt source for suite '$codename' found"
        install_trixie_private "${mirror%%$'\t'*}" "${mirror#*$'\t'}"
        return
    fi
    candidate=$(apt_candidate cbmc)
    if [[ -n $candidate ]]; then
        say "installing the distribution's cbmc package ($candidate)"
        apt_install cbmc || die "apt-get install cbmc failed"
        return
    fi
    case "$id/$codename" in
        debian/bookworm)
            install_from_previous_stable bookworm bullseye ;;
        ubuntu/*)
            die "no 'cbmc' package in the configured apt sources; enable the 'universe' component and run this script again" ;;
        *)
            die "no 'cbmc' package for ${id:-unknown}/${codename:-unknown}; install CBMC >= ${MIN_MAJOR}.${MIN_MINOR} by hand and put it on PATH (or pass --cbmc PATH to lazysma)" ;;
    esac
}

# An external SAT solver for `lazysma verify --sat-solver`. Never fails.
install_sat_solver() {
    [[ ${LAZYSMA_SKIP_SAT_SOLVER:-0} == 1 ]] && return 0
    if command -v cadical >/dev/null 2>&1; then
        return 0
    fi
    apt_update_once
    local pkg wanted=()
    for pkg in cadical kissat; do
        [[ -n $(apt_candidate "$pkg") ]] && wanted+=("$pkg")
    done
    if (( ${#wanted[@]} == 0 )); then
        say "no packaged SAT solver (cadical, kissat) found; CBMC uses its built-in solver"
        return 0
    fi
    say "installing optional SAT solver(s): ${wanted[*]}"
    apt_install "${wanted[@]}" || say "warning: could not install ${wanted[*]}; CBMC uses its built-in solver"
}

main() {
    if [[ ${LAZYSMA_CBMC_ROUTE:-auto} != trixie-private ]] && cbmc_is_recent; then
        say "cbmc already installed: $(command -v cbmc)"
    else
        if [[ ${LAZYSMA_CBMC_ROUTE:-auto} == trixie-private ]]; then
            say "LAZYSMA_CBMC_ROUTE=trixie-private: installing CBMC from trixie in $PRIVATE_PREFIX"
        elif command -v cbmc >/dev/null 2>&1; then
            say "cbmc on PATH is too old or unreadable ($(cbmc --version 2>&1 | head -n 1)); installing a newer one"
        fi
        (( EUID == 0 )) || die "must run as root to install packages: sudo bash $0"
        install_cbmc
        hash -r
        cbmc_is_recent \
            || die "cbmc >= ${MIN_MAJOR}.${MIN_MINOR} is still not on PATH after installation (found: $(command -v cbmc || echo none))"
    fi
    if (( EUID == 0 )); then
        install_sat_solver
    fi
    say "cbmc version: $(cbmc --version | head -n 1)"
    local solver
    for solver in cadical kissat; do
        if command -v "$solver" >/dev/null 2>&1; then
            say "SAT solver available: $solver ($(command -v "$solver"))"
        fi
    done
}

main "$@"
