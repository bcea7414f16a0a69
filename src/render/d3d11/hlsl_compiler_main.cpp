// ossa_hlslc.exe: the child process that runs D3DCompile for the Direct3D 11 backend (shader_compiler.h says
// why and the protocol). Usage: ossa_hlslc FOLDER (FOLDER holds jobs.txt and the sources).
#include <d3dcompiler.h>
#include <windows.h>
#include <wrl/client.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
std::string read_all(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  ok = static_cast<bool>(in) || in.eof();
  return text.str();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ossa_hlslc FOLDER (run by Ossa's Direct3D 11 renderer)\n");
    return 2;
  }
  const std::string folder = argv[1];
  std::FILE* log = std::fopen((folder + "/log.txt").c_str(), "wb");
  if (!log) return 3;
  std::ifstream jobs(folder + "/jobs.txt");
  std::string line;
  int failed = 0;
  while (std::getline(jobs, line)) {
    std::vector<std::string> field;
    std::stringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) field.push_back(f);
    if (field.size() != 5) {
      std::fprintf(log, "bad job line: %s\n", line.c_str());
      failed = 1;
      continue;
    }
    const std::string &source_file = field[0], &name = field[1], &entry = field[2], &target = field[3],
                      &output = field[4];
    // Before the compile, flushed: if the compiler aborts the process, the parent knows what it was doing.
    std::fprintf(log, "compiling %s %s\n", name.c_str(), entry.c_str());
    std::fflush(log);
    bool ok = false;
    const std::string source = read_all(folder + "/" + source_file, ok);
    if (!ok) {
      std::fprintf(log, "%s: cannot read\n", name.c_str());
      failed = 1;
      continue;
    }
    Microsoft::WRL::ComPtr<ID3DBlob> code, errors;
    const HRESULT hr = D3DCompile(source.data(), source.size(), name.c_str(), nullptr, nullptr, entry.c_str(),
                                  target.c_str(), 0, 0, &code, &errors);
    if (errors && errors->GetBufferSize() > 0)
      std::fprintf(log, "%.*s\n", static_cast<int>(errors->GetBufferSize()),
                   static_cast<const char*>(errors->GetBufferPointer()));
    if (FAILED(hr) || !code) {
      std::fprintf(log, "failed (HRESULT 0x%08lx)\n", static_cast<unsigned long>(hr));
      failed = 1;
      continue;
    }
    std::FILE* out = std::fopen((folder + "/" + output).c_str(), "wb");
    if (!out ||
        std::fwrite(code->GetBufferPointer(), 1, code->GetBufferSize(), out) != code->GetBufferSize()) {
      std::fprintf(log, "%s: cannot write %s\n", name.c_str(), output.c_str());
      failed = 1;
    }
    if (out) std::fclose(out);
  }
  std::fprintf(log, failed ? "done with errors\n" : "done\n");
  std::fclose(log);
  return failed;
}
