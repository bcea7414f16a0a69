// Checks `ossa convert MODEL -o OUT.glb` (and .gltf) against two independent readers of glTF:
//   1. the Khronos glTF validator (npm gltf-validator): 0 errors and 0 warnings;
//   2. three.js (npm three) as a real client: GLTFLoader parses the export, AnimationMixer plays every clip,
//      and three's own CPU skinning (SkinnedMesh.getVertexPosition: morph targets, then bones) at key times and
//      between keys must match `ossa eval --vertices --max-influences 8` of the *source* within 1e-5 of the
//      model's size. three.js skins with 4 influences; a mesh exported with 8 (JOINTS_1, WEIGHTS_1) is skinned
//      here with all 8 over three's own bone matrices and morphed vertices. Joint positions are compared too.
// With --compress (KHR_mesh_quantization, reduced keys within 0.1 mm on virtual vertices 3 cm from each joint):
// joints within 0.1 mm of the source (in metres, the bound itself), vertices within 1e-3 of the model's size
// (16-bit positions, and the bound's rotation error at a vertex's distance from its joints).
// Usage: node check_export.mjs OSSA_CLI MODEL OUT_DIR [--compress]   (OSSA_NODE_MODULES: where bootstrap.sh put
// the packages; OSSA_CHECK_FILE: check that glTF of MODEL instead of exporting one)
// Exit 0: passed; 1: a check failed; 77: the npm packages are missing (ctest reports the test as skipped).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [ossa, model, outDir, flag] = process.argv.slice(2);
const compress = flag === '--compress';
const modules = process.env.OSSA_NODE_MODULES || '';
if (!ossa || !model || !outDir) {
  console.error('usage: node check_export.mjs OSSA_CLI MODEL OUT_DIR');
  process.exit(2);
}
if (!existsSync(join(modules, 'three/package.json')) || !existsSync(join(modules, 'gltf-validator/package.json'))) {
  console.log(`SKIPPED: npm packages three and gltf-validator not found in OSSA_NODE_MODULES='${modules}' ` +
              '(scripts/bootstrap.sh installs them into the build tree)');
  process.exit(77);
}
const validator = (await import(pathToFileURL(join(modules, 'gltf-validator/index.js')))).default;
const THREE = await import(pathToFileURL(join(modules, 'three/build/three.module.js')));
const { GLTFLoader } = await import(pathToFileURL(join(modules, 'three/examples/jsm/loaders/GLTFLoader.js')));

const kTolerance = compress ? 1e-3 : 1e-5;      // vertices, of the model's size
const kJointTolerance = compress ? 1.01e-4 : 0;  // compressed: joints in metres (the bound, plus float noise)
let failed = false;
const fail = (message) => { console.log(`FAIL: ${message}`); failed = true; };

// The glTF's JSON and binary buffer, from a .glb or a .gltf with its .bin beside it.
function readGltf(path) {
  const bytes = readFileSync(path);
  if (bytes.readUInt32LE(0) === 0x46546c67) {
    const jsonLength = bytes.readUInt32LE(12);
    const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
    const rest = 20 + jsonLength;
    const bin = rest < bytes.length ? bytes.subarray(rest + 8, rest + 8 + bytes.readUInt32LE(rest)) : Buffer.alloc(0);
    return { json, bin };
  }
  const json = JSON.parse(bytes.toString('utf8'));
  const uri = json.buffers?.[0]?.uri;
  return { json, bin: uri ? readFileSync(join(dirname(path), decodeURIComponent(uri))) : Buffer.alloc(0) };
}

// A GLB without images (three's image loaders need a browser; vertices do not depend on them).
function glbWithoutImages({ json, bin }) {
  const doc = structuredClone(json);
  delete doc.images; delete doc.textures; delete doc.samplers;
  for (const m of doc.materials ?? []) {
    delete m.normalTexture; delete m.occlusionTexture; delete m.emissiveTexture;
    if (m.pbrMetallicRoughness) { delete m.pbrMetallicRoughness.baseColorTexture; delete m.pbrMetallicRoughness.metallicRoughnessTexture; }
  }
  if (doc.buffers?.[0]) delete doc.buffers[0].uri;
  let text = Buffer.from(JSON.stringify(doc), 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const binPadded = Buffer.concat([bin, Buffer.alloc((4 - (bin.length % 4)) % 4)]);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0); header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + (bin.length ? 8 + binPadded.length : 0), 8);
  header.writeUInt32LE(text.length, 12); header.writeUInt32LE(0x4e4f534a, 16);
  const parts = [header, text];
  if (bin.length) {
    const chunk = Buffer.alloc(8);
    chunk.writeUInt32LE(binPadded.length, 0); chunk.writeUInt32LE(0x004e4942, 4);
    parts.push(chunk, binPadded);
  }
  const all = Buffer.concat(parts);
  return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
}

async function validate(path) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(path)), {
    uri: basename(path),
    maxIssues: 50,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try { resolve(new Uint8Array(readFileSync(join(dirname(path), decodeURIComponent(uri))))); }
        catch (e) { reject(e.toString()); }
      }),
  });
  const { numErrors, numWarnings, numInfos, numHints } = report.issues;
  console.log(`  validator: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos, ${numHints} hints`);
  for (const m of report.issues.messages)
    if (m.severity <= 1) console.log(`    ${m.severity ? 'warning' : 'error'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  if (numErrors || numWarnings) fail(`${path}: the validator reports ${numErrors} errors, ${numWarnings} warnings`);
}

function ossaEval(clipIndex, times) {
  const args = ['eval', model, '--clip', String(clipIndex), '--vertices', '--json', '--max-influences', '8'];
  for (const t of times) args.push('--time', t.toPrecision(9));
  return JSON.parse(execFileSync(ossa, args, { maxBuffer: 1 << 30 }).toString('utf8'));
}

// The model's size: the diagonal of its rest vertices' box (its joints' when it has no mesh).
function modelSize(rest) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const add = (p) => { for (let i = 0; i < 3; ++i) { lo[i] = Math.min(lo[i], p[i]); hi[i] = Math.max(hi[i], p[i]); } };
  const meshes = Object.values(rest.meshes ?? {});
  if (meshes.some((m) => m.length)) meshes.forEach((m) => m.forEach(add));
  else Object.values(rest.joints).forEach(add);
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// Key times and times between keys of a three.js clip: its start and end, up to 4 keys and 4 midpoints.
function probeTimes(clip) {
  const keys = [...new Set(clip.tracks.flatMap((t) => Array.from(t.times)))].sort((a, b) => a - b);
  const pick = (list, n) => list.length <= n ? list : Array.from({ length: n }, (_, i) => list[Math.floor(((i + 0.5) * list.length) / n)]);
  const mids = [];
  for (let i = 1; i < keys.length; ++i) mids.push(Math.fround((keys[i - 1] + keys[i]) / 2));
  const times = [0, clip.duration, ...pick(keys, 4), ...pick(mids, 4)].map(Math.fround);
  return [...new Set(times)].sort((a, b) => a - b);
}

// Vertex i of mesh o as three.js draws it: its own getVertexPosition (morph targets, then 4 bones); with a
// second influence set (GLTFLoader keeps JOINTS_1 / WEIGHTS_1 as joints_1 / weights_1), the morphed vertex
// skinned with all 8 over three's bone matrices, as three's applyBoneTransform does with 4.
const boneMatrix = new THREE.Matrix4(), morphed = new THREE.Vector3(), term = new THREE.Vector3();
function skinnedPosition(o, i, out) {
  const second = o.geometry.attributes.joints_1;
  if (!o.isSkinnedMesh || !second) return o.getVertexPosition(i, out);
  THREE.Mesh.prototype.getVertexPosition.call(o, i, morphed);  // morph targets only
  morphed.applyMatrix4(o.bindMatrix);
  out.set(0, 0, 0);
  // GLTFLoader renormalises the first set to sum 1 (normalizeSkinWeights): scaled back by what the second
  // set leaves.
  const weights1 = o.geometry.attributes.weights_1;
  let first = 1;
  for (let k = 0; k < 4; ++k) first -= weights1.getComponent(i, k);
  const sets = [[o.geometry.attributes.skinIndex, o.geometry.attributes.skinWeight, first], [second, weights1, 1]];
  for (const [joints, weights, scale] of sets)
    for (let k = 0; k < 4; ++k) {
      const w = weights.getComponent(i, k) * scale;
      if (w === 0) continue;
      const j = joints.getComponent(i, k);
      boneMatrix.multiplyMatrices(o.skeleton.bones[j].matrixWorld, o.skeleton.boneInverses[j]);
      out.addScaledVector(term.copy(morphed).applyMatrix4(boneMatrix), w);
    }
  return out.applyMatrix4(o.bindMatrixInverse);
}

async function compareWithThree(path) {
  const gltfData = readGltf(path);
  const doc = gltfData.json;
  const buffer = glbWithoutImages(gltfData);
  const load = () => new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
  const first = await load();
  const clipCount = first.animations.length;
  let worstVertex = 0, worstJoint = 0, samples = 0;
  for (let c = 0; c < Math.max(clipCount, 1); ++c) {
    const gltf = c === 0 ? first : await load();  // a fresh scene per clip: nothing carries over
    const clip = gltf.animations[c];
    const times = clip ? probeTimes(clip) : [0];
    const expected = ossaEval(c, times);
    if (clip && expected.clip && expected.clip.name !== doc.animations[c].name)
      fail(`clip ${c}: ossa eval has '${expected.clip.name}', the export '${doc.animations[c].name}'`);
    const size = modelSize(expected.rest);
    const mixer = new THREE.AnimationMixer(gltf.scene);
    if (clip) {
      const action = mixer.clipAction(clip);
      action.setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
    }
    const objects = [];
    gltf.scene.traverse((o) => objects.push(o));
    for (const [k, t] of times.entries()) {
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      const want = expected.samples[k];
      for (const o of objects) {
        const where = gltf.parser.associations.get(o);
        if (!where) continue;
        if (o.isMesh && where.meshes !== undefined) {
          const name = doc.meshes[where.meshes].name;
          const vertices = want.meshes[name];
          if (!vertices) { fail(`mesh '${name}' is not in ossa eval's output`); continue; }
          const count = o.geometry.attributes.position.count;
          if (count !== vertices.length) { fail(`mesh '${name}': ${count} vertices, the source ${vertices.length}`); continue; }
          const v = new THREE.Vector3();
          for (let i = 0; i < count; ++i) {
            skinnedPosition(o, i, v);
            v.applyMatrix4(o.matrixWorld);
            const p = vertices[i];
            worstVertex = Math.max(worstVertex, Math.hypot(v.x - p[0], v.y - p[1], v.z - p[2]) / size);
          }
        } else if (where.nodes !== undefined && !o.isMesh) {
          const p = want.joints[doc.nodes[where.nodes].name];
          if (!p) continue;
          const w = new THREE.Vector3().setFromMatrixPosition(o.matrixWorld);
          worstJoint = Math.max(worstJoint, Math.hypot(w.x - p[0], w.y - p[1], w.z - p[2]) / (compress ? 1 : size));
        }
      }
      ++samples;
    }
  }
  const jointBound = compress ? kJointTolerance : kTolerance;
  console.log(`  three.js: ${clipCount} clips, ${samples} times: vertices within ${worstVertex.toExponential(2)} ` +
              `of the model's size (bound ${kTolerance}), joints within ${worstJoint.toExponential(2)}` +
              (compress ? ` m (bound ${kJointTolerance} m)` : ` of its size (bound ${kTolerance})`));
  if (!(worstVertex <= kTolerance) || !(worstJoint <= jointBound)) fail(`${path}: three.js differs from ossa eval`);
}

mkdirSync(outDir, { recursive: true });
const stem = basename(model, extname(model));
// OSSA_CHECK_FILE: check that file (another tool's export of MODEL, e.g. gltfpack's) instead of exporting.
const given = process.env.OSSA_CHECK_FILE;
if (given) {
  await validate(given);
  await compareWithThree(given);
  process.exit(failed ? 1 : 0);
}
for (const ext of ['.glb', '.gltf']) {
  const out = join(outDir, stem + ext);
  const args = ['--trusted', 'convert', model, '-o', out, ...(compress ? ['--compress'] : [])];
  const log = execFileSync(ossa, args, { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim().split('\n');
  console.log(`${model} -> ${out}: ${log[0]}`);
  if (compress) console.log(log.filter((l) => l.includes('joint keys')).join('\n'));
  await validate(out);
  await compareWithThree(out);
}
process.exit(failed ? 1 : 0);
