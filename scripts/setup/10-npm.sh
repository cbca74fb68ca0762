# npm packages the tests run: MCP reference servers, the MCP inspector and conformance suite,
# Node 22 (they need it; it also runs them), steady for OpenAPI request validation, the AG-UI client,
# and the A2A JavaScript SDK (@a2a-js/sdk, for the a2a package's interop tests). Pinned by
# scripts/setup/npm/package-lock.json; reinstalled only when the lock file changes.
npm_src=scripts/setup/npm
if [ ! -d "$WIELD_TOOLS/node_modules" ] || ! cmp -s "$npm_src/package-lock.json" "$WIELD_TOOLS/package-lock.json"; then
	cp "$npm_src/package.json" "$npm_src/package-lock.json" "$WIELD_TOOLS/"
	(cd "$WIELD_TOOLS" && npm ci --no-audit --no-fund --loglevel=error)
fi
export PATH="$WIELD_TOOLS/node_modules/.bin:$PATH"
