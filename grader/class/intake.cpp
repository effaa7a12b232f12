#include "intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "Lab-07_MatMul" -> "lab07matmul": how folder names are compared with a lab's name.
std::string alnum_lower(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> parts;
    std::string part;
    for (char c : path) {
        if (c == '/') {
            parts.push_back(part);
            part.clear();
        } else {
            part += c;
        }
    }
    parts.push_back(part);
    return parts;
}

std::string base_name(const std::string& rel) { return components(rel).back(); }

// Hidden files and folders (.git, .vscode's history, .DS_Store) and macOS's __MACOSX resource forks: never
// candidates and never written. A stale copy of a source in an editor's history must not compete with the
// student's file.
bool is_junk(const std::string& rel) {
    for (const std::string& part : components(rel))
        if (part.empty() || part[0] == '.' || part == "__MACOSX") return true;
    return false;
}

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

// An archive's own name for an entry, made relative and checked: backslashes (Windows zip tools) become
// slashes, "./" and empty parts go. Returns false with the reason for an absolute path or a "..": such an
// entry is refused before anything is written, whatever libarchive's own checks would do.
bool clean_entry_path(std::string raw, std::string& rel, std::string& why) {
    std::replace(raw.begin(), raw.end(), '\\', '/');
    if (!raw.empty() && raw[0] == '/') {
        why = "refused: an absolute path";
        return false;
    }
    if (raw.size() >= 2 && std::isalpha(static_cast<unsigned char>(raw[0])) && raw[1] == ':') {
        why = "refused: a drive-letter path";
        return false;
    }
    rel.clear();
    for (const std::string& part : components(raw)) {
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            why = "refused: the path leaves the submission";
            return false;
        }
        rel += (rel.empty() ? "" : "/") + part;
    }
    return true;
}

// ---- SHA-256 (OpenSSL) -------------------------------------------------------------------------------------

class Sha256 {
public:
    Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("OpenSSL could not start a SHA-256 digest");
    }
    void add(const void* data, std::size_t size) {
        if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw std::runtime_error("OpenSSL SHA-256 update failed");
    }
    // A field of the hashed record: its length first, so that ("ab", "c") and ("a", "bc") differ.
    void add_field(const std::string& s) {
        const std::string length = std::to_string(s.size()) + ":";
        add(length.data(), length.size());
        add(s.data(), s.size());
    }
    void add_file(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot read " + path + " to hash it");
        const std::string length = std::to_string(fs::file_size(path)) + ":";
        add(length.data(), length.size());
        std::vector<char> buffer(1 << 16);
        while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
            add(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    std::string hex() {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int size = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), digest, &size) != 1) throw std::runtime_error("OpenSSL SHA-256 final failed");
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < size; ++i) {
            out += digits[digest[i] >> 4];
            out += digits[digest[i] & 15];
        }
        return out;
    }

private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

std::string file_sha256(const std::string& path) {
    Sha256 h;
    h.add_file(path);
    return h.hex();
}

// Over the lab and each taken file in source-name order, by the name lab.json gives it (where it was found
// does not change the grade, so it does not change the hash) and its bytes; nothing of the archive's
// format, timestamps or permissions.
std::string lab_hash(const LabFiles& lab) {
    Sha256 h;
    h.add_field("gpulab-intake-1");
    h.add_field(lab.lab);
    for (const auto& [source, path] : lab.files) {
        h.add_field(source);
        h.add_file(path);
    }
    return h.hex();
}

// ---- unpacking (libarchive) --------------------------------------------------------------------------------

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;
using EntryPtr = std::unique_ptr<archive_entry, void (*)(archive_entry*)>;

struct Unpacked {
    std::string problem;
    std::vector<std::string> files;    // every regular file seen, relative, junk included
    std::set<std::string> written;     // those written to the scratch folder (candidates)
    std::vector<std::string> refused;  // links, refused paths, unwritable entries, unread hidden folders
};

// A reader over a folder or an archive. Archive formats and filters are named one by one instead of
// "all": libarchive's mtree format reads file contents from paths the "archive" names (a student's text file
// could name /etc/passwd), and the "all" filters fall back to running external programs.
ArchivePtr open_source(const std::string& entry_path, bool folder, std::string& problem) {
    if (folder) {
        ArchivePtr in(archive_read_disk_new(), archive_read_free);
        archive_read_disk_set_symlink_physical(in.get());  // a link is reported as a link, never followed
        archive_read_disk_set_behavior(in.get(), ARCHIVE_READDISK_NO_XATTR | ARCHIVE_READDISK_NO_ACL |
                                                     ARCHIVE_READDISK_NO_FFLAGS | ARCHIVE_READDISK_NO_TRAVERSE_MOUNTS);
        if (archive_read_disk_open(in.get(), entry_path.c_str()) != ARCHIVE_OK)
            problem = "the folder " + entry_path + " could not be read: " + archive_error_string(in.get());
        return in;
    }
    ArchivePtr in(archive_read_new(), archive_read_free);
    archive_read_support_filter_gzip(in.get());
    archive_read_support_filter_bzip2(in.get());
    archive_read_support_filter_xz(in.get());
    archive_read_support_filter_zstd(in.get());
    archive_read_support_format_zip(in.get());
    archive_read_support_format_tar(in.get());
    archive_read_support_format_gnutar(in.get());
    archive_read_support_format_7zip(in.get());
    archive_read_support_format_empty(in.get());
    if (archive_read_open_filename(in.get(), entry_path.c_str(), 1 << 16) != ARCHIVE_OK)
        problem = fs::path(entry_path).filename().string() + " could not be opened as an archive (" +
                  archive_error_string(in.get()) + "): a submission is a folder, a .zip, a .tar.gz or a .tgz";
    return in;
}

std::string error_of(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "no reason given";
}

// Writes the candidate `rel`, the entry `in` is at, to `dest`, counting its bytes into `bytes` as they come. False
// where it was not written: refused (listed in u.refused) or a problem that stops the unpacking (u.problem).
bool write_candidate(archive* in, archive* out, const std::string& rel, const std::string& dest, const std::string& name,
                     const std::string& too_big, const IntakeLimits& limits, std::uint64_t& bytes, Unpacked& u) {
    EntryPtr file(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(file.get(), dest.c_str());
    archive_entry_set_filetype(file.get(), AE_IFREG);
    archive_entry_set_perm(file.get(), 0644);  // readable by the grader whatever the archive said
    const int w = archive_write_header(out, file.get());
    if (w == ARCHIVE_FATAL) {
        u.problem = "writing " + rel + " from " + name + " failed: " + error_of(out);
        return false;
    }
    if (w < ARCHIVE_WARN) {
        u.refused.push_back(rel + " (could not be written: " + error_of(out) + ")");
        return false;
    }
    // Bytes are counted as they come, not from the header: a zip bomb's header may lie about its size.
    std::uint64_t file_end = 0;
    for (;;) {
        const void* block = nullptr;
        std::size_t size = 0;
        la_int64_t offset = 0;
        const int d = archive_read_data_block(in, &block, &size, &offset);
        if (d == ARCHIVE_EOF) break;
        if (d < ARCHIVE_WARN) {
            u.problem = rel + " in " + name + " could not be read (" + error_of(in) +
                        "): the archive is damaged or encrypted; ask for a new upload";
            break;
        }
        file_end = std::max<std::uint64_t>(file_end, static_cast<std::uint64_t>(offset) + size);
        if (bytes + file_end > limits.max_total_bytes) {
            u.problem = too_big + " (stopped at " + rel + ")";
            break;
        }
        if (archive_write_data_block(out, block, size, offset) < ARCHIVE_WARN) {
            u.problem = "writing " + rel + " from " + name + " failed: " + error_of(out);
            break;
        }
    }
    archive_write_finish_entry(out);
    bytes += file_end;
    return u.problem.empty();
}

// Reads every entry of the submission and writes the candidates (regular files named like a lab's source,
// outside hidden folders) under scratch. Everything else is only listed. Stops at the first cap hit or
// read error, with a problem that says which and what to do.
Unpacked unpack(const std::string& entry_path, bool folder, const fs::path& scratch,
                const std::set<std::string>& candidate_names, const IntakeLimits& limits) {
    Unpacked u;
    const std::string name = fs::path(entry_path).filename().string();
    ArchivePtr in = open_source(entry_path, folder, u.problem);
    if (!u.problem.empty()) return u;

    // ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS is left out because the destinations below are absolute (the
    // scratch folder; changing the process's directory would not be thread-safe). The archive's own names are
    // checked for absolute paths and ".." by clean_entry_path before this writer sees them, and only regular
    // files are ever written, so no link can be planted for a later entry to write through.
    ArchivePtr out(archive_write_disk_new(), archive_write_free);
    archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);

    const std::string too_big = name + " holds more than " + mib(limits.max_total_bytes) +
                                " once unpacked, the limit for one submission: submit only your source files "
                                "(no build folders, data or .git)";
    EntryPtr entry(archive_entry_new(), archive_entry_free);
    std::uint64_t entries = 0, bytes = 0;
    for (;;) {
        const int r = archive_read_next_header2(in.get(), entry.get());
        if (r == ARCHIVE_EOF) break;
        if (r < ARCHIVE_WARN) {
            u.problem = name + " could not be read" + (entries ? " past entry " + std::to_string(entries) : "") +
                        " (" + error_of(in.get()) + "): it is damaged or not an archive; ask for a new upload";
            break;
        }
        if (++entries > limits.max_entries) {
            u.problem = name + " holds more than " + std::to_string(limits.max_entries) +
                        " files and folders, the limit for one submission: submit only your source files";
            break;
        }
        const char* raw_name = archive_entry_pathname(entry.get());
        std::string raw = raw_name ? raw_name : "";
        if (folder) {  // read_disk names entries by their path on disk: make them relative to the folder
            raw = raw.size() > entry_path.size() ? raw.substr(entry_path.size() + 1) : "";
        }
        std::string rel, why;
        if (!clean_entry_path(raw, rel, why)) {
            u.refused.push_back(raw + " (" + why + ")");
            continue;
        }
        const auto type = archive_entry_filetype(entry.get());
        if (type == AE_IFDIR) {
            if (folder && (rel.empty() || !is_junk(rel)))
                archive_read_disk_descend(in.get());
            else if (folder)
                u.refused.push_back(rel + "/ (hidden folder: not read)");
            continue;
        }
        if (rel.empty()) continue;
        if (const char* target = archive_entry_hardlink(entry.get())) {
            u.refused.push_back(rel + " (a hard link to " + target + ": not taken)");
            continue;
        }
        if (type == AE_IFLNK) {
            const char* target = archive_entry_symlink(entry.get());
            u.refused.push_back(rel + " -> " + (target ? target : "?") + " (a symbolic link: not followed)");
            continue;
        }
        if (type != AE_IFREG) {
            u.refused.push_back(rel + " (not a regular file: not taken)");
            continue;
        }
        u.files.push_back(rel);
        if (is_junk(rel) || !candidate_names.count(lower(base_name(rel)))) {
            // Read past, not written; its size still counts, which also bounds the time spent decompressing.
            if (archive_entry_size_is_set(entry.get())) bytes += static_cast<std::uint64_t>(archive_entry_size(entry.get()));
            if (bytes > limits.max_total_bytes) {
                u.problem = too_big;
                break;
            }
            continue;
        }

        if (!write_candidate(in.get(), out.get(), rel, (scratch / rel).string(), name, too_big, limits, bytes, u)) {
            if (!u.problem.empty()) break;
            continue;
        }
        u.written.insert(rel);
    }
    if (archive_write_close(out.get()) < ARCHIVE_WARN && u.problem.empty())
        u.problem = "finishing the files of " + name + " failed: " + error_of(out.get());
    return u;
}

// ---- finding each lab's files ------------------------------------------------------------------------------

// Folder names that obviously mean the lab "07-matmul": 07-matmul, 07_matmul, lab07, lab7, 07, 7, matmul,
// lab07-matmul, Lab 7 MatMul ... (compared as lowercase letters and digits).
std::set<std::string> lab_folder_names(const std::string& lab) {
    std::size_t digits = 0;
    while (digits < lab.size() && std::isdigit(static_cast<unsigned char>(lab[digits]))) ++digits;
    const std::string slug = alnum_lower(lab.substr(digits));
    std::set<std::string> names{alnum_lower(lab)};
    if (!slug.empty()) names.insert(slug);
    if (digits > 0) {
        const std::string number = lab.substr(0, digits);
        for (const std::string& n : {number, std::to_string(std::stoi(number))}) {
            names.insert(n);
            names.insert("lab" + n);
            names.insert(n + slug);
            names.insert("lab" + n + slug);
        }
    }
    return names;
}

// The one folder a whole submission sits in ("zip -r alice.zip alice/"), or "" when it does not.
std::string single_top_folder(const std::vector<std::string>& files) {
    std::set<std::string> tops;
    for (const std::string& f : files) {
        if (is_junk(f)) continue;
        const auto parts = components(f);
        if (parts.size() == 1) return "";
        tops.insert(parts[0]);
    }
    return tops.size() == 1 ? *tops.begin() : "";
}

// Where a source may be, best first. A file is taken from the first place that has it; two different
// files in that place are an ambiguity, never a guess.
struct Place {
    const char* what;  // said in the note when the file is taken from here ("" for the exact place)
    bool (*matches)(const std::string& rel, const std::string& lab, const std::string& source, const std::string& top);
};

const Place kPlaces[] = {
    {"", [](const std::string& rel, const std::string& lab, const std::string& source, const std::string&) {
         return rel == "starter/" + lab + "/" + source || rel == lab + "/" + source;
     }},
    {"the whole submission is inside one folder",
     [](const std::string& rel, const std::string& lab, const std::string& source, const std::string& top) {
         return !top.empty() && (rel == top + "/starter/" + lab + "/" + source || rel == top + "/" + lab + "/" + source);
     }},
    {"in a folder named for the lab",
     [](const std::string& rel, const std::string& lab, const std::string& source, const std::string&) {
         const auto parts = components(rel);
         return parts.size() >= 2 && lower(parts.back()) == lower(source) &&
                lab_folder_names(lab).count(alnum_lower(parts[parts.size() - 2])) > 0;
     }},
    {"the only file of that name in the submission",
     [](const std::string& rel, const std::string&, const std::string& source, const std::string&) {
         return lower(base_name(rel)) == lower(source);
     }},
};

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
    return out;
}

LabFiles find_lab_files(const LabSpec& spec, const Unpacked& u, const fs::path& scratch, const std::string& top,
                        const std::string& entry_name, std::set<std::string>& taken) {
    LabFiles lab;
    lab.lab = spec.lab;
    for (const std::string& source : spec.sources) {
        const std::string expected = "starter/" + spec.lab + "/" + source;
        bool found = false;
        for (const Place& place : kPlaces) {
            std::vector<std::string> here;  // sorted: u.written is a set
            for (const std::string& rel : u.written)
                if (place.matches(rel, spec.lab, source, top)) here.push_back(rel);
            if (here.empty()) continue;

            std::map<std::string, std::vector<std::string>> by_content;
            for (const std::string& rel : here) by_content[file_sha256((scratch / rel).string())].push_back(rel);
            if (by_content.size() > 1) {
                lab.ambiguous.push_back(source);
                lab.notes.push_back(std::to_string(by_content.size()) + " different files could be " + source + " in " +
                                    entry_name + ": " + join(here) + "; none was taken (not guessing): keep only the one "
                                    "to grade, at " + expected);
                break;
            }
            const std::string& rel = here.front();
            lab.files[source] = fs::absolute(scratch / rel).lexically_normal().string();
            taken.insert(rel);
            found = true;
            std::string note;
            if (*place.what)
                note = "found " + source + " at " + rel + " in " + entry_name + " (" + place.what + "; expected at " +
                       expected + ")";
            if (base_name(rel) != source)
                note += std::string(note.empty() ? "found " + source + " as " + rel : ";") + " the name's case differs";
            if (here.size() > 1)
                note += std::string(note.empty() ? "took " + rel : ";") + " identical copies at " +
                        join(std::vector<std::string>(here.begin() + 1, here.end())) + " ignored";
            if (!note.empty()) lab.notes.push_back(note);
            break;
        }
        if (!found) lab.missing.push_back(source);
    }
    return lab;
}

// What a submission brought and nothing took, for its feedback: a folder in which nothing was taken is one
// line with its file count (a build folder, .git, __MACOSX) when it holds more than one file.
std::vector<std::string> ignored_files(std::vector<std::string> files, const std::set<std::string>& taken) {
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    std::map<std::string, std::size_t> count;
    std::set<std::string> holds_taken;
    for (const std::string& f : files) {
        const auto parts = components(f);
        std::string dir;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            dir += (dir.empty() ? "" : "/") + parts[i];
            ++count[dir];
            if (taken.count(f)) holds_taken.insert(dir);
        }
    }
    std::vector<std::string> out;
    std::set<std::string> listed;
    for (const std::string& f : files) {
        if (taken.count(f)) continue;
        const auto parts = components(f);
        std::string dir, line = f;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            dir += (dir.empty() ? "" : "/") + parts[i];
            if (!holds_taken.count(dir) && count[dir] > 1) {
                line = dir + "/ (" + std::to_string(count[dir]) + " files)";
                break;
            }
        }
        if (listed.insert(line).second) out.push_back(line);
    }
    return out;
}

void prepare_scratch(const fs::path& scratch) {
    std::error_code ec;
    if (fs::exists(scratch, ec)) {
        if (!fs::is_directory(scratch, ec) || !fs::is_empty(scratch, ec))
            throw std::invalid_argument("the scratch folder " + scratch.string() +
                                        " is not an empty folder (a leftover of an interrupted run? remove it first)");
        return;
    }
    if (!fs::create_directories(scratch, ec) && ec)
        throw std::invalid_argument("cannot create the scratch folder " + scratch.string() + ": " + ec.message());
}

void empty_folder(const fs::path& dir) {
    std::error_code ec;
    for (const auto& child : fs::directory_iterator(dir, ec)) fs::remove_all(child.path(), ec);
}

}  // namespace

// ---- the interface ------------------------------------------------------------------------------------------

std::vector<LabSpec> read_lab_specs(const std::string& labs_dir) {
    std::error_code ec;
    if (!fs::is_directory(labs_dir, ec)) throw std::runtime_error("the labs folder " + labs_dir + " does not exist");
    std::vector<LabSpec> specs;
    for (const auto& dir : fs::directory_iterator(labs_dir)) {
        const fs::path config = dir.path() / "lab.json";
        if (!dir.is_directory() || !fs::exists(config)) continue;
        std::ifstream in(config);
        if (!in) throw std::runtime_error("cannot open " + config.string());
        nlohmann::json json;
        try {
            json = nlohmann::json::parse(in);
        } catch (const nlohmann::json::parse_error& e) {
            throw std::runtime_error(config.string() + " is not valid JSON: " + e.what());
        }
        LabSpec spec{dir.path().filename().string(), {}};
        const auto sources = json.find("sources");
        if (sources == json.end() || !sources->is_array() || sources->empty())
            throw std::runtime_error(config.string() + ": \"sources\" must list the student's files");
        for (const auto& source : *sources) {
            const std::string name = source.is_string() ? source.get<std::string>() : "";
            if (name.empty() || name == "." || name == ".." || name.find_first_of("/\\") != std::string::npos)
                throw std::runtime_error(config.string() + ": \"sources\" holds " + source.dump() +
                                         ", not a plain file name");
            spec.sources.push_back(name);
        }
        specs.push_back(spec);
    }
    std::sort(specs.begin(), specs.end(), [](const LabSpec& a, const LabSpec& b) { return a.lab < b.lab; });
    return specs;
}

std::string student_id(const std::string& entry_path) {
    const std::string name = fs::path(entry_path).lexically_normal().filename().string().empty()
                                 ? fs::path(entry_path).lexically_normal().parent_path().filename().string()
                                 : fs::path(entry_path).filename().string();
    for (const std::string suffix : {".tar.gz", ".tgz", ".zip", ".tar"})
        if (ends_with_ci(name, suffix) && name.size() > suffix.size()) return name.substr(0, name.size() - suffix.size());
    return name;
}

std::vector<std::string> list_submissions(const std::string& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw std::runtime_error("the submissions folder " + folder + " is not a folder");
    std::map<std::string, std::string> by_name;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.' || name == "__MACOSX") continue;
        by_name[name] = entry.path().string();
    }
    if (ec) throw std::runtime_error("cannot list the submissions folder " + folder + ": " + ec.message());
    std::map<std::string, std::string> by_student;
    std::vector<std::string> paths;
    for (const auto& [name, path] : by_name) {
        const std::string id = student_id(path);
        const auto [it, fresh] = by_student.emplace(id, name);
        if (!fresh)
            throw std::runtime_error("two submissions for the student \"" + id + "\" in " + folder + ": " + it->second +
                                     " and " + name + "; keep the one to grade and move the other away");
        paths.push_back(path);
    }
    return paths;
}

bool Submission::empty() const {
    return std::all_of(labs.begin(), labs.end(), [](const LabFiles& l) { return l.empty(); });
}

const LabFiles* Submission::lab(const std::string& name) const {
    for (const LabFiles& l : labs)
        if (l.lab == name) return &l;
    return nullptr;
}

Submission take_submission(const std::string& entry_path, const std::string& scratch_dir,
                           const std::vector<LabSpec>& labs, const IntakeLimits& limits) {
    Submission s;
    s.entry = entry_path;
    s.student = student_id(entry_path);
    prepare_scratch(scratch_dir);
    const fs::path scratch = fs::canonical(scratch_dir);
    s.unpacked_dir = scratch.string();
    for (const LabSpec& spec : labs) s.labs.push_back(LabFiles{spec.lab, {}, {}, {}, {}, {}});

    const std::string entry_name = fs::path(entry_path).filename().string();
    std::error_code ec;
    const fs::path source = fs::canonical(entry_path, ec);  // an instructor's link to a submission is followed
    if (ec) {
        s.problem = entry_path + " cannot be read: " + ec.message();
        return s;
    }
    std::set<std::string> candidate_names;
    for (const LabSpec& spec : labs)
        for (const std::string& name : spec.sources) candidate_names.insert(lower(name));

    const Unpacked u = unpack(source.string(), fs::is_directory(source), scratch, candidate_names, limits);
    if (!u.problem.empty()) {
        s.problem = u.problem;
        empty_folder(scratch);  // what was written so far is no use, and may be most of a bomb
        return s;
    }
    const std::string top = single_top_folder(u.files);
    std::set<std::string> taken;
    for (std::size_t i = 0; i < labs.size(); ++i) {
        s.labs[i] = find_lab_files(labs[i], u, scratch, top, entry_name, taken);
        s.labs[i].content_hash = lab_hash(s.labs[i]);
    }
    s.ignored = u.refused;
    for (const std::string& line : ignored_files(u.files, taken)) s.ignored.push_back(line);
    if (s.empty() && !labs.empty())
        s.notes.push_back(entry_name + " holds no file of any lab: each lab's files go at starter/<lab>/<file>, e.g. " +
                          "starter/" + labs.front().lab + "/" + labs.front().sources.front());
    return s;
}

}  // namespace gpulab::grade_class
