// docs_check: the documentation's code is compiled code, and its links lead somewhere.
//
//   docs_check SOURCE_DIR             check; prints each problem as FILE:LINE: message, exits 1 on any
//   docs_check --update SOURCE_DIR    rewrite the snippets in the docs and headers from their regions
//
// Snippets. The code of a snippet lives in a region of an example that runs as a test (examples/*.cpp, built
// and run; examples/python/*.py, run), between the lines `// [snippet NAME]` and `// [/snippet]` (`# [snippet
// NAME]` and `# [/snippet]` in Python). The region's text is its lines without marker lines (regions may
// nest), less their common indentation.
//  * Markdown (README.md, docs/*.md): every ```cpp and ```python block follows a line `<!-- snippet:
//    examples/FILE NAME -->` (blank lines between are allowed) and equals that region.
//  * Public headers (include/ossa/**/*.h): in the comment block above `#pragma once`, a line
//    `// snippet: examples/FILE.cpp NAME` is followed by the region, one line each as `//   code`; the block
//    ends at the first line that does not start with `//   `. Code in that comment block that is not tagged
//    so (two or more indented lines ending in `;`, `{` or `}`) is an error.
// Links. Every relative link `[text](path)` or `[text](path#anchor)` (and `![alt](path)`, and reference
// definitions `[id]: path`) in README.md, CONTRIBUTING.md, SECURITY.md, CHANGELOG.md and docs/*.md must name
// an existing file or folder, relative to the markdown file; an anchor must be a heading of the target under
// GitHub's rules (lowercase, spaces to '-', punctuation other than '-' and '_' dropped, -1, -2 for repeats).
// Links with a scheme (http:, https:, mailto:) and text inside code blocks or inline code are not checked.
//
// Check mode never writes. --update writes a changed file through a temporary file beside it and a rename.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Problem {
  std::string file;
  int line;
  std::string message;
};

std::vector<Problem> problems;
fs::path root;

std::string rel(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::relative(p, root, ec);
  return (ec || r.empty() ? p : r).generic_string();
}

void report(const fs::path& file, int line, const std::string& message) {
  problems.push_back({rel(file), line, message});
}

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Lines without their terminators ("\r\n" or "\n"); `final_newline` says whether the text ended with one.
std::vector<std::string> split_lines(const std::string& text, bool* final_newline = nullptr) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  if (final_newline) *final_newline = !text.empty() && text.back() == '\n';
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, bool final_newline) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size() || final_newline) out += '\n';
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

size_t indent_of(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool write_atomically(const fs::path& p, const std::string& text) {
  fs::path tmp = p;
  tmp += ".docs_check.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

// ---- Regions in examples -------------------------------------------------------------------------------

struct Region {
  std::vector<std::string> lines;  // dedented, marker lines removed
  int line = 0;                    // of the opening marker
};

std::map<std::string, std::map<std::string, Region>> region_cache;  // file (relative) -> name -> region

// `// [snippet NAME]` gives NAME; `// [/snippet]` gives "/".
std::optional<std::string> marker(std::string_view line) {
  std::string_view t = trim(line);
  if (starts_with(t, "// [")) {
    t.remove_prefix(4);
  } else if (starts_with(t, "# [")) {  // Python examples (examples/python/*.py)
    t.remove_prefix(3);
  } else {
    return std::nullopt;
  }
  if (t == "/snippet]") return std::string("/");
  if (!starts_with(t, "snippet ") || t.back() != ']') return std::nullopt;
  std::string_view name = trim(t.substr(8, t.size() - 9));
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

std::vector<std::string> dedent(std::vector<std::string> lines) {
  size_t common = std::string::npos;
  for (std::string& l : lines) {
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
    if (!l.empty()) common = std::min(common, indent_of(l));
  }
  if (common == std::string::npos) common = 0;
  for (std::string& l : lines)
    if (!l.empty()) l.erase(0, common);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  while (!lines.empty() && lines.front().empty()) lines.erase(lines.begin());
  return lines;
}

const std::map<std::string, Region>* regions_of(const std::string& file) {
  auto it = region_cache.find(file);
  if (it != region_cache.end()) return &it->second;
  std::map<std::string, Region>& regions = region_cache[file];
  const fs::path path = root / file;
  std::optional<std::string> text = read_text(path);
  if (!text) return nullptr;
  std::vector<std::string> lines = split_lines(*text);
  struct Open {
    std::string name;
    int line;
    std::vector<std::string> body;
  };
  std::vector<Open> open;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<std::string> m = marker(lines[i]);
    const int line_no = static_cast<int>(i) + 1;
    if (!m) {
      for (Open& o : open) o.body.push_back(lines[i]);
      continue;
    }
    if (*m != "/") {
      open.push_back({*m, line_no, {}});
      continue;
    }
    if (open.empty()) {
      report(path, line_no, "`// [/snippet]` without an open region");
      continue;
    }
    Open o = std::move(open.back());
    open.pop_back();
    if (regions.count(o.name)) {
      report(path, o.line, "region '" + o.name + "' is defined twice in this file");
      continue;
    }
    regions[o.name] = Region{dedent(std::move(o.body)), o.line};
  }
  for (const Open& o : open) report(path, o.line, "region '" + o.name + "' is never closed");
  return &regions;
}

// The region named by a tag, or null with a problem reported at the tag.
const Region* find_region(const fs::path& at, int line, const std::string& file, const std::string& name) {
  if (!starts_with(file, "examples/") || file.find("..") != std::string::npos) {
    report(at, line, "snippet source '" + file + "' is not a file under examples/");
    return nullptr;
  }
  const std::map<std::string, Region>* regions = regions_of(file);
  if (!regions) {
    report(at, line, "snippet source '" + file + "' does not exist");
    return nullptr;
  }
  auto it = regions->find(name);
  if (it == regions->end()) {
    report(at, line, "no region '" + name + "' in " + file);
    return nullptr;
  }
  return &it->second;
}

// First line where two texts differ, as a short note for the message.
std::string first_difference(const std::vector<std::string>& doc, const std::vector<std::string>& code) {
  size_t i = 0;
  while (i < doc.size() && i < code.size() && doc[i] == code[i]) ++i;
  auto show = [](const std::vector<std::string>& v, size_t k) {
    return k < v.size() ? "'" + v[k] + "'" : std::string("(end)");
  };
  return "line " + std::to_string(i + 1) + " of the snippet: docs have " + show(doc, i) +
         ", the region has " + show(code, i) + " (docs_check --update rewrites it)";
}

// ---- Markdown -------------------------------------------------------------------------------------------

struct Fence {
  size_t open = 0, close = 0;  // line indices of the fence lines (close == lines.size() when unclosed)
  size_t indent = 0;
  std::string info;  // first word of the info string, lowercased
};

std::vector<Fence> fences_of(const std::vector<std::string>& lines) {
  std::vector<Fence> fences;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t ind = indent_of(lines[i]);
    std::string_view t = std::string_view(lines[i]).substr(ind);
    if (!(starts_with(t, "```") || starts_with(t, "~~~"))) continue;
    const char c = t[0];
    size_t n = 0;
    while (n < t.size() && t[n] == c) ++n;
    Fence f;
    f.open = i;
    f.indent = ind;
    std::string_view info = trim(t.substr(n));
    info = info.substr(0, info.find_first_of(" \t{"));
    for (char ch : info) f.info += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    f.close = lines.size();
    for (size_t j = i + 1; j < lines.size(); ++j) {
      std::string_view u = trim(lines[j]);
      size_t m = 0;
      while (m < u.size() && u[m] == c) ++m;
      if (m >= n && m == u.size()) {
        f.close = j;
        break;
      }
    }
    fences.push_back(f);
    i = f.close;
  }
  return fences;
}

bool is_cpp(const std::string& info) {
  return info == "cpp" || info == "c++" || info == "cxx" || info == "cc" || info == "hpp";
}
bool is_python(const std::string& info) {
  return info == "python" || info == "py";
}
// Blocks whose code must come from an example that runs: C++ and Python.
bool is_checked(const std::string& info) {
  return is_cpp(info) || is_python(info);
}

// `<!-- snippet: FILE NAME -->` on a line.
bool parse_md_tag(std::string_view line, std::string& file, std::string& name) {
  std::string_view t = trim(line);
  if (!starts_with(t, "<!--") || t.size() < 7 || t.substr(t.size() - 3) != "-->") return false;
  t = trim(t.substr(4, t.size() - 7));
  if (!starts_with(t, "snippet:")) return false;
  std::istringstream words{std::string(t.substr(8))};
  std::string extra;
  return static_cast<bool>(words >> file >> name) && !(words >> extra);
}

// Returns the new text in update mode (unchanged when nothing differs).
std::string check_md_snippets(const fs::path& path, const std::string& text, bool update) {
  bool final_newline = false;
  std::vector<std::string> lines = split_lines(text, &final_newline);
  const std::vector<Fence> fences = fences_of(lines);
  std::vector<bool> in_fence(lines.size(), false);
  for (const Fence& f : fences)
    for (size_t i = f.open; i <= f.close && i < lines.size(); ++i) in_fence[i] = true;

  struct Replacement {
    size_t begin, end;  // content lines [begin, end)
    std::vector<std::string> lines;
  };
  std::vector<Replacement> replacements;
  std::set<size_t> used_tags;
  for (const Fence& f : fences) {
    if (!is_checked(f.info)) continue;
    const int line_no = static_cast<int>(f.open) + 1;
    if (f.close == lines.size()) {
      report(path, line_no, "```" + f.info + " block is never closed");
      continue;
    }
    size_t k = f.open;
    while (k > 0 && trim(lines[k - 1]).empty()) --k;
    std::string file, name;
    if (k == 0 || in_fence[k - 1] || !parse_md_tag(lines[k - 1], file, name)) {
      report(path, line_no,
             "```" + f.info +
                 " block without `<!-- snippet: examples/FILE NAME -->` before it: its code "
                 "must come from an example that runs");
      continue;
    }
    used_tags.insert(k - 1);
    const Region* region = find_region(path, static_cast<int>(k), file, name);
    if (!region) continue;
    std::vector<std::string> doc;
    for (size_t i = f.open + 1; i < f.close; ++i) {
      std::string l = lines[i];
      const size_t strip = std::min(indent_of(l), f.indent);
      l.erase(0, strip);
      while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
      doc.push_back(l);
    }
    if (doc == region->lines) continue;
    if (update) {
      Replacement r{f.open + 1, f.close, {}};
      for (const std::string& l : region->lines)
        r.lines.push_back(l.empty() ? l : std::string(f.indent, ' ') + l);
      replacements.push_back(std::move(r));
    } else {
      report(path, line_no,
             "snippet " + file + " " + name +
                 " differs from its region: " + first_difference(doc, region->lines));
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string file, name;
    if (!in_fence[i] && !used_tags.count(i) && parse_md_tag(lines[i], file, name))
      report(path, static_cast<int>(i) + 1, "snippet tag not followed by a ```cpp or ```python block");
  }
  if (replacements.empty()) return text;
  for (auto r = replacements.rbegin(); r != replacements.rend(); ++r) {
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(r->begin),
                lines.begin() + static_cast<std::ptrdiff_t>(r->end));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(r->begin), r->lines.begin(), r->lines.end());
  }
  return join_lines(lines, final_newline);
}

// ---- Links and anchors ----------------------------------------------------------------------------------

// Appends the UTF-8 code point at s[i] to `out` when GitHub's slug keeps it; advances i.
void slug_char(const std::string& s, size_t& i, std::string& out) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    if (std::isalnum(c) || c == '-' || c == '_')
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
    ++i;
    return;
  }
  size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  len = std::min(len, s.size() - i);
  unsigned cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  // Letters and digits stay (GitHub keeps \p{L}, \p{M}, \p{N}); punctuation and symbols go. Approximated by
  // the blocks that hold punctuation and symbols.
  const bool symbol = (cp >= 0x80 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 ||
                      (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF0F) || cp >= 0x1F000;
  if (!symbol) {
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) cp += 0x20;  // Latin-1 capitals to lowercase
    if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out.append(s, i, len);
    }
  }
  i += len;
}

// Heading text as GitHub renders it for the slug: links reduced to their text, HTML tags dropped.
std::string slug(std::string heading) {
  std::string text;
  for (size_t i = 0; i < heading.size();) {
    if (heading[i] == '<') {
      const size_t end = heading.find('>', i);
      if (end != std::string::npos) {
        i = end + 1;
        continue;
      }
    }
    if (heading[i] == ']' && i + 1 < heading.size() && heading[i + 1] == '(') {
      const size_t end = heading.find(')', i);
      if (end != std::string::npos) {
        i = end + 1;
        continue;
      }
    }
    text += heading[i++];
  }
  std::string out;
  for (size_t i = 0; i < text.size();) slug_char(text, i, out);
  return out;
}

std::map<fs::path, std::set<std::string>> anchor_cache;

const std::set<std::string>& anchors_of(const fs::path& file) {
  auto it = anchor_cache.find(file);
  if (it != anchor_cache.end()) return it->second;
  std::set<std::string>& anchors = anchor_cache[file];
  std::optional<std::string> text = read_text(file);
  if (!text) return anchors;
  std::vector<std::string> lines = split_lines(*text);
  std::vector<bool> in_fence(lines.size(), false);
  for (const Fence& f : fences_of(lines))
    for (size_t i = f.open; i <= f.close && i < lines.size(); ++i) in_fence[i] = true;
  std::map<std::string, int> seen;
  auto add = [&](const std::string& s) {
    const int n = seen[s]++;
    anchors.insert(n == 0 ? s : s + "-" + std::to_string(n));
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (in_fence[i]) continue;
    const std::string& l = lines[i];
    // Explicit anchors: <a name="x"> or id="x".
    for (const char* attr : {"name=\"", "id=\""}) {
      for (size_t p = l.find(attr); p != std::string::npos; p = l.find(attr, p + 1)) {
        const size_t b = p + std::string_view(attr).size(), e = l.find('"', b);
        if (e != std::string::npos && l.rfind('<', p) != std::string::npos)
          anchors.insert(l.substr(b, e - b));
      }
    }
    const size_t ind = indent_of(l);
    if (ind > 3) continue;
    std::string_view t = std::string_view(l).substr(ind);
    size_t level = 0;
    while (level < t.size() && t[level] == '#') ++level;
    if (level >= 1 && level <= 6 && (level == t.size() || t[level] == ' ')) {
      std::string_view h = trim(t.substr(level));
      while (!h.empty() && h.back() == '#') h.remove_suffix(1);  // closing sequence
      add(slug(std::string(trim(h))));
      continue;
    }
    // Setext: a line of = or - under a paragraph line.
    if (i + 1 < lines.size() && !trim(l).empty() && !in_fence[i + 1]) {
      std::string_view u = trim(lines[i + 1]);
      if (!u.empty() && (u.find_first_not_of('=') == std::string::npos ||
                         (u.find_first_not_of('-') == std::string::npos && u.size() >= 2))) {
        if (!starts_with(trim(l), "|") && !starts_with(trim(l), "-") && !starts_with(trim(l), "*"))
          add(slug(std::string(trim(l))));
      }
    }
  }
  return anchors;
}

bool has_scheme(std::string_view target) {
  const size_t colon = target.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(target[i]);
    if (!(std::isalnum(c) || c == '+' || c == '-' || c == '.')) return false;
  }
  return true;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

void check_link(const fs::path& md, int line, std::string target) {
  target = std::string(trim(target));
  if (!target.empty() && target.front() == '<') {
    const size_t e = target.find('>');
    target = target.substr(1, e == std::string::npos ? std::string::npos : e - 1);
  } else {
    const size_t space = target.find_first_of(" \t");  // a title follows
    if (space != std::string::npos) target.resize(space);
  }
  if (target.empty() || has_scheme(target)) return;
  std::string path_part = target, anchor;
  if (const size_t hash = target.find('#'); hash != std::string::npos) {
    path_part = target.substr(0, hash);
    anchor = target.substr(hash + 1);
  }
  if (const size_t q = path_part.find('?'); q != std::string::npos) path_part.resize(q);
  fs::path dest = md;
  if (!path_part.empty()) {
    if (path_part.front() == '/') {
      report(md, line, "link '" + target + "' is absolute: use a path relative to this file");
      return;
    }
    dest = md.parent_path() / fs::path(percent_decode(path_part));
    std::error_code ec;
    if (!fs::exists(dest, ec)) {
      report(md, line, "link '" + target + "': no such file (" + rel(dest.lexically_normal()) + ")");
      return;
    }
  }
  if (anchor.empty()) return;
  std::error_code ec;
  if (fs::is_directory(dest, ec)) {
    report(md, line, "link '" + target + "': an anchor into a folder");
    return;
  }
  const std::string ext = dest.extension().string();
  if (ext != ".md" && ext != ".markdown") return;  // anchors of other files (source lines) are not checked
  if (!anchors_of(dest).count(percent_decode(anchor)))
    report(md, line,
           "link '" + target + "': no heading '#" + anchor + "' in " + rel(dest.lexically_normal()));
}

// Blanks inline code spans (same-length backtick runs) so their text is not read as links.
std::string without_inline_code(const std::string& l) {
  std::string out = l;
  for (size_t i = 0; i < out.size();) {
    if (out[i] != '`') {
      ++i;
      continue;
    }
    size_t n = 0;
    while (i + n < out.size() && out[i + n] == '`') ++n;
    const std::string run(n, '`');
    size_t close = out.find(run, i + n);
    while (close != std::string::npos && close + n < out.size() && out[close + n] == '`')
      close = out.find(run, close + n + 1);
    if (close == std::string::npos) {
      i += n;
      continue;
    }
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(i),
              out.begin() + static_cast<std::ptrdiff_t>(close + n), ' ');
    i = close + n;
  }
  return out;
}

void check_md_links(const fs::path& path, const std::string& text) {
  std::vector<std::string> lines = split_lines(text);
  std::vector<bool> in_fence(lines.size(), false);
  for (const Fence& f : fences_of(lines))
    for (size_t i = f.open; i <= f.close && i < lines.size(); ++i) in_fence[i] = true;
  bool in_comment = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (in_fence[i]) continue;
    const int line_no = static_cast<int>(i) + 1;
    std::string l = without_inline_code(lines[i]);
    // HTML comments hold no links (the snippet tags live there).
    std::string visible;
    for (size_t p = 0; p < l.size();) {
      if (in_comment) {
        const size_t e = l.find("-->", p);
        if (e == std::string::npos) break;
        in_comment = false;
        p = e + 3;
      } else {
        const size_t b = l.find("<!--", p);
        visible += l.substr(p, b == std::string::npos ? std::string::npos : b - p);
        if (b == std::string::npos) break;
        in_comment = true;
        p = b + 4;
      }
    }
    // Reference definitions: [id]: target
    std::string_view t = trim(visible);
    if (starts_with(t, "[") && !starts_with(t, "[^")) {
      const size_t close = t.find("]:");
      if (close != std::string_view::npos && t.find(']') == close) {
        check_link(path, line_no, std::string(t.substr(close + 2)));
        continue;
      }
    }
    // Inline links: ](target), the target's parentheses balanced.
    for (size_t p = visible.find("]("); p != std::string::npos; p = visible.find("](", p + 2)) {
      size_t depth = 0, e = p + 2;
      for (; e < visible.size(); ++e) {
        if (visible[e] == '(')
          ++depth;
        else if (visible[e] == ')') {
          if (depth == 0) break;
          --depth;
        }
      }
      if (e >= visible.size()) continue;  // not a link: no closing parenthesis on the line
      if (visible.rfind('[', p) == std::string::npos) continue;
      check_link(path, line_no, visible.substr(p + 2, e - p - 2));
    }
  }
}

// ---- Headers --------------------------------------------------------------------------------------------

bool code_like(std::string_view code) {
  // Text before a trailing `//` comment ends in ';', '{' or '}'.
  const size_t comment = code.find("//");
  std::string_view c = trim(code.substr(0, comment));
  if (c.empty()) return false;
  if (starts_with(c, "* ") || starts_with(c, "- ")) return false;  // a bullet of prose
  return c.back() == ';' || c.back() == '{' || c.back() == '}';
}

std::string check_header(const fs::path& path, const std::string& text, bool update) {
  bool final_newline = false;
  std::vector<std::string> lines = split_lines(text, &final_newline);
  size_t top_end = 0;  // the top comment block: leading // lines
  while (top_end < lines.size() && starts_with(trim(lines[top_end]), "//")) ++top_end;
  const std::string_view kTag = "// snippet:", kCode = "//   ";
  struct Replacement {
    size_t begin, end;
    std::vector<std::string> lines;
  };
  std::vector<Replacement> replacements;
  for (size_t i = 0; i < top_end;) {
    const std::string& l = lines[i];
    const int line_no = static_cast<int>(i) + 1;
    if (starts_with(l, kTag)) {
      std::istringstream words{l.substr(kTag.size())};
      std::string file, name, extra;
      size_t end = i + 1;
      while (end < top_end && starts_with(lines[end], kCode)) ++end;
      if (!(words >> file >> name) || (words >> extra)) {
        report(path, line_no, "expected `// snippet: examples/FILE.cpp NAME`");
      } else if (const Region* region = find_region(path, line_no, file, name)) {
        std::vector<std::string> doc;
        for (size_t k = i + 1; k < end; ++k) {
          std::string c = lines[k].substr(kCode.size());
          while (!c.empty() && (c.back() == ' ' || c.back() == '\t')) c.pop_back();
          doc.push_back(c);
        }
        if (doc.empty()) {
          report(path, line_no, "snippet tag not followed by `//   code` lines");
        } else if (doc != region->lines) {
          const bool blank = std::find(region->lines.begin(), region->lines.end(), "") != region->lines.end();
          if (blank) {
            report(path, line_no,
                   "region " + file + " " + name +
                       " has a blank line: a header snippet cannot show one (its block ends there)");
          } else if (update) {
            Replacement r{i + 1, end, {}};
            for (const std::string& c : region->lines) r.lines.push_back(std::string(kCode) + c);
            replacements.push_back(std::move(r));
          } else {
            report(path, line_no,
                   "snippet " + file + " " + name +
                       " differs from its region: " + first_difference(doc, region->lines));
          }
        }
      }
      i = end;
      continue;
    }
    if (starts_with(l, kCode)) {  // an untagged indented block: code?
      size_t end = i;
      int code_lines = 0;
      bool bullets = false;  // a list of prose, whose items may end in ';'
      while (end < top_end && starts_with(lines[end], kCode)) {
        const std::string_view c = trim(std::string_view(lines[end]).substr(kCode.size()));
        bullets = bullets || starts_with(c, "* ") || starts_with(c, "- ");
        if (code_like(c)) ++code_lines;
        ++end;
      }
      if (code_lines >= 2 && !bullets)
        report(path, line_no,
               "code in the header's comment without `// snippet: examples/FILE.cpp NAME` above it");
      i = end;
      continue;
    }
    ++i;
  }
  if (replacements.empty()) return text;
  for (auto r = replacements.rbegin(); r != replacements.rend(); ++r) {
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(r->begin),
                lines.begin() + static_cast<std::ptrdiff_t>(r->end));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(r->begin), r->lines.begin(), r->lines.end());
  }
  return join_lines(lines, final_newline);
}

// ---- Driver ---------------------------------------------------------------------------------------------

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext, bool recursive) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  if (recursive) {
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ext) out.push_back(it->path());
  } else {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ext) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void maybe_write(const fs::path& p, const std::string& before, const std::string& after, int& written) {
  if (after == before) return;
  if (write_atomically(p, after)) {
    ++written;
    std::printf("updated %s\n", rel(p).c_str());
  } else {
    report(p, 1, "could not write the updated file");
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool update = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--update") {
    update = true;
    args.erase(args.begin());
  }
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr, "usage: docs_check [--update] SOURCE_DIR\n");
    return 2;
  }
  std::error_code ec;
  root = fs::canonical(args[0], ec);
  if (ec || !fs::is_directory(root)) {
    std::fprintf(stderr, "docs_check: %s is not a folder\n", args[0].c_str());
    return 2;
  }

  std::vector<fs::path> snippet_docs;  // checked for snippets and links
  if (fs::exists(root / "README.md")) snippet_docs.push_back(root / "README.md");
  for (const fs::path& p : files_in(root / "docs", ".md", false)) snippet_docs.push_back(p);
  std::vector<fs::path> link_only;
  for (const char* name : {"CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"})
    if (fs::exists(root / name)) link_only.push_back(root / name);

  int written = 0, snippets = 0;
  for (const fs::path& p : snippet_docs) {
    std::optional<std::string> text = read_text(p);
    if (!text) {
      report(p, 1, "cannot read the file");
      continue;
    }
    std::string updated = check_md_snippets(p, *text, update);
    for (const Fence& f : fences_of(split_lines(*text))) snippets += is_checked(f.info);
    if (update) maybe_write(p, *text, updated, written);
    check_md_links(p, update ? updated : *text);
  }
  for (const fs::path& p : link_only)
    if (std::optional<std::string> text = read_text(p)) check_md_links(p, *text);

  int headers = 0;
  for (const fs::path& p : files_in(root / "include" / "ossa", ".h", true)) {
    std::optional<std::string> text = read_text(p);
    if (!text) continue;
    ++headers;
    std::string updated = check_header(p, *text, update);
    if (update) maybe_write(p, *text, updated, written);
  }

  std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
    return a.file != b.file ? a.file < b.file : a.line < b.line;
  });
  for (const Problem& p : problems) std::printf("%s:%d: %s\n", p.file.c_str(), p.line, p.message.c_str());
  int regions = 0;
  for (const auto& [file, named] : region_cache) regions += static_cast<int>(named.size());
  const std::string updated_note = update ? ", " + std::to_string(written) + " file(s) updated" : "";
  std::printf(
      "docs_check: %zu markdown files, %d C++ and Python snippets, %d headers, %d regions in %zu examples; "
      "%zu "
      "problem(s)%s\n",
      snippet_docs.size() + link_only.size(), snippets, headers, regions, region_cache.size(),
      problems.size(), updated_note.c_str());
  return problems.empty() ? 0 : 1;
}
