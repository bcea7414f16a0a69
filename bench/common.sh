# Sourced by the bench/ scripts.
# model_files ROOT FILE...: `files` becomes the bundled files given, then every model of ../shared/models (real
# files written by others; absent from users' clones, which is said).
model_files() {
  local root=$1 shared=$1/../shared/models f
  shift
  files=("$@")
  if [ -d "$shared" ]; then
    for f in "$shared"/*.fbx "$shared"/*.glb "$shared"/*.gltf; do
      case $f in *6100*) ;; *) files+=("$f") ;; esac  # FBX 6100 is refused by design
    done
  else
    echo "($shared not found: the bundled files only)"
  fi
}

# install_ossa BUILD_DIR PREFIX: this checkout's build, installed where a side-by-side harness finds it.
install_ossa() {
  mkdir -p "$2"
  cmake --build "$1" -j2 >/dev/null  # what the install copies
  cmake --install "$1" --prefix "$2" >/dev/null
}
