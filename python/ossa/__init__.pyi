# Type stubs for the ossa module (python/src/*.cpp): what editors complete and type checkers read.
from os import PathLike
from typing import Any, Iterable, Sequence, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, bytes, PathLike[str], PathLike[bytes]]
_ClipRef = Union[int, str, "Clip"]
_Times = Union[float, Sequence[float], npt.NDArray[np.floating[Any]]]

class OssaError(RuntimeError):
    """A failure the library reports (its message names the file and the problem)."""

class Skeleton:
    """The character's joints, parents first (parents[j] < j)."""
    @property
    def joint_count(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def names(self) -> list[str]:
        """Joint names in joint order (bytes that are not UTF-8 as surrogates)."""
    @property
    def parents(self) -> npt.NDArray[np.int32]:
        """(J,) read-only view: each joint's parent, -1 for roots."""
    @property
    def rest_local(self) -> npt.NDArray[np.float32]:
        """(J, 10): rest local transforms (translation xyz, rotation xyzw, scale xyz)."""
    @property
    def inverse_binds(self) -> npt.NDArray[np.float32]:
        """(J, 4, 4) row-major: model space to each joint's bind space."""
    def find(self, name: str) -> int:
        """The joint called `name`, or -1."""

class Clip:
    """One animation clip of a character."""
    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> float: ...
    @property
    def layout(self) -> str:
        """'fixed_rate', 'keyed' or 'quantized'."""
    @property
    def frame_rate(self) -> float: ...
    @property
    def frame_count(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def frame_times(self, fps: float = 0.0) -> npt.NDArray[np.float64]:
        """Times of the frames at `fps` (0: the clip's rate, 30 for keyed clips), the last at the end."""

class Mesh:
    """A skinned mesh as stored (bind pose); arrays are read-only views."""
    @property
    def name(self) -> str: ...
    @property
    def vertex_count(self) -> int: ...
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """(V, 3)."""
    @property
    def normals(self) -> npt.NDArray[np.float32]:
        """(V, 3), or (0, 3) when the file had none."""
    @property
    def triangles(self) -> npt.NDArray[np.uint32]:
        """(F, 3) vertex indices."""
    @property
    def joints(self) -> npt.NDArray[np.int32]:
        """(V, K): skeleton joints influencing each vertex, strongest first."""
    @property
    def weights(self) -> npt.NDArray[np.float32]:
        """(V, K): their weights, each row summing to 1."""
    @property
    def morph_targets(self) -> list[str]: ...

class Character:
    """A loaded character: immutable, evaluated by any number of threads at once."""
    @property
    def source_path(self) -> str: ...
    @property
    def skeleton(self) -> Skeleton: ...
    @property
    def clips(self) -> list[Clip]: ...
    @property
    def meshes(self) -> list[Mesh]: ...
    @property
    def notifies(self) -> dict[str, list[dict[str, Any]]]:
        """{clip name: [{'name', 'time', 'duration', 'payload'}]}."""
    def clip(self, clip: _ClipRef) -> Clip:
        """A clip by index or name ('Walk' finds 'Armature|Walk')."""
    def find_clip(self, name: str) -> int: ...
    def local_poses(self, clip: _ClipRef | None, times: _Times) -> npt.NDArray[np.float32]:
        """(T, J, 10) local transforms; None for the rest pose; a number time drops the T axis."""
    def joint_world(self, clip: _ClipRef | None, times: _Times) -> npt.NDArray[np.float32]:
        """(T, J, 4, 4) model-space matrices, row-major ([:3, 3] is the joint's origin)."""
    def joint_positions(self, clip: _ClipRef | None, times: _Times) -> npt.NDArray[np.float32]:
        """(T, J, 3) joint origins in model space."""
    def skin(self, clip: _ClipRef | None, times: _Times,
             mesh: int | str | None = None) -> Any:
        """{mesh name: (T, V, 3)} skinned vertices (one array when `mesh` is given)."""

class Animator:
    """One character's playback (base clip, crossfades, inertialization, layers, notify events)."""
    def __init__(self, character: Character) -> None: ...
    def play(self, clip: _ClipRef, mode: str = "repeat", passes: int = 0, start: float = 0.0) -> None: ...
    def crossfade(self, clip: _ClipRef, duration: float, sync_phase: bool = False,
                  mode: str = "repeat") -> None: ...
    def inertialize(self, clip: _ClipRef, duration: float, mode: str = "repeat") -> None: ...
    def stop(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def seek(self, seconds: float) -> None: ...
    speed: float
    def add_layer(self, clip: _ClipRef, weight: float, mask: Iterable[float] | None = None,
                  additive: bool = False) -> int: ...
    def set_layer_weight(self, layer: int, weight: float) -> None: ...
    def remove_layer(self, layer: int) -> None: ...
    def update(self, dt: float) -> list[dict[str, Any]]:
        """Advances by dt seconds; this update's events (type, name, clip, time, loop, payload)."""
    @property
    def clip(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def loops(self) -> int: ...
    @property
    def playing(self) -> bool: ...
    @property
    def finished(self) -> bool: ...
    @property
    def locals(self) -> npt.NDArray[np.float32]: ...
    @property
    def joint_world(self) -> npt.NDArray[np.float32]: ...
    @property
    def joint_positions(self) -> npt.NDArray[np.float32]: ...
    def mesh_palette(self, mesh: int) -> npt.NDArray[np.float32]: ...
    @property
    def root_delta(self) -> tuple[float, float, float]:
        """(x, z, yaw) the base clip travelled this update (clips with root motion)."""

class GraphInstance:
    """A state machine (.animgraph.json) driving one character."""
    def __init__(self, character: Character, path: _Path | None = None) -> None: ...
    @property
    def parameters(self) -> list[str]: ...
    def set(self, name: str, value: float | bool) -> None: ...
    def trigger(self, name: str) -> None: ...
    def value(self, name: str) -> float: ...
    def update(self, dt: float) -> list[dict[str, Any]]: ...
    def current_state(self, layer: int = 0) -> str | None: ...
    @property
    def locals(self) -> npt.NDArray[np.float32]: ...
    @property
    def joint_world(self) -> npt.NDArray[np.float32]: ...
    @property
    def joint_positions(self) -> npt.NDArray[np.float32]: ...

def load(path: _Path, *, trusted: bool = False, layout: str = "fixed_rate", frame_rate: float = 0.0,
         notifies: _Path | None = None, max_influences: int = 4, left_handed: bool = False,
         unit_scale: float = 0.0) -> Character:
    """A model file (FBX, glTF, COLLADA, BVH) or .ossa as a Character (guarded import unless trusted)."""

def convert(input: _Path, output: _Path, *, trusted: bool = False, clips: Iterable[str] | None = None,
            layout: str = "fixed_rate", frame_rate: float = 0.0, root_motion: bool = False,
            compress: bool = False, tolerance_mm: float = 0.1, shell_mm: float = 30.0,
            notifies: _Path | None = None, graph: _Path | None = None,
            left_handed: bool = False) -> dict[str, Any]:
    """A model file to .ossa, or any character file to glTF (.glb/.gltf by the extension), as `ossa convert`."""

def export_gltf(character: Character, path: _Path, *, compress: bool = False, tolerance_mm: float = 0.1,
                shell_mm: float = 30.0) -> dict[str, Any]:
    """The character as glTF 2.0 (.glb or .gltf); returns what was written."""

def retarget(source: Character, target: Character, *, map: str | dict[str, str] | None = None, contacts: Sequence[str] = (),
             profile: str = "auto", clips: Iterable[_ClipRef] | None = None) -> Character:
    """The source's clips on the target's skeleton and meshes."""

def bone_map_profiles() -> list[str]: ...
