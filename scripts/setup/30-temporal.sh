# The Temporal server the temporal module's end-to-end tests start: temporal/devserver, the
# server's own Go module (go.temporal.io/server) built from the module proxy into
# $WIELD_TOOLS/bin. go build relinks it only when its sources or dependencies change.
# Sourced by scripts/test, which sets WIELD_TOOLS; run alone, it builds into the same place.
WIELD_TOOLS="${WIELD_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.tools}"
mkdir -p "$WIELD_TOOLS/bin"
(cd temporal/devserver && go build -o "$WIELD_TOOLS/bin/wield-temporal-devserver" .)
