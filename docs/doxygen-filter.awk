# Doxygen input filter (docs/Doxyfile): Ossa's headers use plain // comments; this turns them into
# documentation without changing the headers. The paragraph before #pragma once becomes the file's
# documentation, a // block above a declaration documents it, and a trailing // after a member documents
# that member.
BEGIN { in_header = 1 }
in_header && /^\/\// {
  line = $0
  sub(/^\/\/ ?/, "", line)
  if (!started) { print "/** @file"; started = 1 }
  print " * " line
  next
}
in_header {
  if (started) print " */"
  in_header = 0
}
/^[ \t]*\/\/ ?/ { sub(/\/\/ ?/, "/// "); print; next }
/[;{][ \t]+\/\/ / { sub(/[ \t]+\/\/ /, "  ///< "); print; next }
{ print }
