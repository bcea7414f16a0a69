# Sourced by the bench/ scripts: `files` becomes the bundled files given, then every model of
# ../shared/models (real files written by others; absent from users' clones, which is said).
#   source bench/model-files.sh; model_files "$root" "$root/assets/sample/ossa_sample.fbx" ...
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
