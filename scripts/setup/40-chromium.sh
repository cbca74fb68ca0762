# Headless Chromium from Debian's packages, for the browser tests of the page of `wield web`
# (package web, driven by chromedp). Exports WIELD_CHROMIUM, the browser's path.
chromium_bin=$(command -v chromium || true)
if [ -z "$chromium_bin" ]; then
	as_root=""
	[ "$(id -u)" -ne 0 ] && as_root=sudo
	$as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends chromium >/dev/null
	chromium_bin=$(command -v chromium)
fi
export WIELD_CHROMIUM="$chromium_bin"
