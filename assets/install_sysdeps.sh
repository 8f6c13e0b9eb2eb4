#!/usr/bin/env bash
# Installs the system packages Stepformer needs when they are missing and we may install them:
# a CJK font (Chinese renders as boxes without one) and the xcb libraries Qt wants on a real screen.
set -u
need=""
fc-list :lang=zh 2>/dev/null | grep -q . || need="$need fonts-wqy-microhei"
for pkg in libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libegl1 libfontconfig1 libxkbcommon0 libglib2.0-0 libdbus-1-3; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
command -v fc-list >/dev/null || need="$need fontconfig"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing:$need"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >/dev/null 2>&1 \
    || echo "warning: could not install$need" >&2
elif command -v sudo >/dev/null && command -v apt-get >/dev/null; then
  echo "installing (sudo):$need"
  sudo apt-get install -y -qq $need >/dev/null 2>&1 || echo "warning: could not install$need" >&2
else
  echo "note: please install$need with your package manager" >&2
fi
exit 0
