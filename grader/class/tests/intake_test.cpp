// Intake: submissions built at test time (folders, and archives written with libarchive, or with zip where
// the test is about what that tool makes) taken against the repository's real lab specs.
#include "intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace gpulab::grade_class {
namespace {

namespace fs = std::filesystem;

struct Item {
    enum Kind { File, Symlink, Hardlink };
    std::string name;
    std::string content;
    Kind kind = File;
    std::string target;  // for links
};

void write_file(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An archive written by libarchive: "zip" or "tar.gz", entries exactly as named (".." and links included).
void write_archive(const fs::path& path, const std::string& format, const std::vector<Item>& items,
                   time_t mtime = 1700000000) {
    archive* a = archive_write_new();
    if (format == "zip") {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        archive_write_add_filter_gzip(a);
    }
    ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
    for (const Item& item : items) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, item.name.c_str());
        archive_entry_set_mtime(e, mtime, 0);
        archive_entry_set_perm(e, 0644);
        if (item.kind == Item::Symlink) {
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_symlink(e, item.target.c_str());
        } else if (item.kind == Item::Hardlink) {
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_hardlink(e, item.target.c_str());
            archive_entry_set_size(e, 0);
        } else {
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_size(e, static_cast<la_int64_t>(item.content.size()));
        }
        ASSERT_GE(archive_write_header(a, e), ARCHIVE_WARN) << item.name << ": " << archive_error_string(a);
        if (item.kind == Item::File && !item.content.empty())
            ASSERT_EQ(archive_write_data(a, item.content.data(), item.content.size()),
                      static_cast<la_ssize_t>(item.content.size()));
        archive_entry_free(e);
    }
    ASSERT_EQ(archive_write_close(a), ARCHIVE_OK) << archive_error_string(a);
    archive_write_free(a);
}

bool have_tool(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

// Every file under dir, relative, sorted (links listed as themselves).
std::vector<std::string> tree(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (!e.is_directory()) out.push_back(fs::relative(e.path(), dir).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines) out += "\n  " + l;
    return out;
}

// The bytes taken for a lab's source, or why none were (so a failure shows the notes).
std::string taken_bytes(const Submission& s, const std::string& lab, const std::string& source) {
    const LabFiles* files = s.lab(lab);
    if (!files) return "(no lab " + lab + ")";
    const auto it = files->files.find(source);
    return it == files->files.end() ? "(not taken:" + joined(files->notes) + ")" : read_file(it->second);
}

const std::string kMatmul = "__global__ void matmul_naive() { /* alice's */ }\n";
const std::string kHeatRod = "__global__ void ftcs_step() { /* alice's */ }\n";

class Intake : public testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "gpulab-intake-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        root_ = pattern;
        fs::create_directories(root_ / "submissions");
        labs_ = read_lab_specs(std::string(GPULAB_SOURCE_DIR) + "/labs");
    }
    void TearDown() override { fs::remove_all(root_); }

    fs::path submission(const std::string& name) const { return root_ / "submissions" / name; }

    Submission take(const std::string& name, const IntakeLimits& limits = {}) {
        const fs::path scratch = root_ / "scratch" / std::to_string(taken_++);
        return take_submission(submission(name).string(), scratch.string(), labs_, limits);
    }

    fs::path root_;
    std::vector<LabSpec> labs_;
    int taken_ = 0;
};

TEST_F(Intake, ReadsEveryLabsSourcesFromLabJson) {
    ASSERT_GE(labs_.size(), 7u);
    const auto matmul = std::find_if(labs_.begin(), labs_.end(), [](const LabSpec& l) { return l.lab == "07-matmul"; });
    ASSERT_NE(matmul, labs_.end());
    EXPECT_EQ(matmul->sources, std::vector<std::string>{"matmul.cu"});
    for (const LabSpec& spec : labs_) {
        ASSERT_FALSE(spec.sources.empty()) << spec.lab;
        for (const std::string& source : spec.sources)
            EXPECT_TRUE(fs::exists(fs::path(GPULAB_SOURCE_DIR) / "starter" / spec.lab / source)) << spec.lab << "/" << source;
    }
    EXPECT_TRUE(std::is_sorted(labs_.begin(), labs_.end(), [](auto& a, auto& b) { return a.lab < b.lab; }));

    write_file(root_ / "labs" / "99-bad" / "lab.json", R"({"sources": ["../grader/evil.cpp"]})");
    try {
        read_lab_specs((root_ / "labs").string());
        FAIL() << "a source that is not a plain file name was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("99-bad/lab.json"), std::string::npos) << e.what();
    }
}

TEST_F(Intake, ListsSubmissionsSortedWithoutHiddenEntriesAndRefusesTwoForOneStudent) {
    fs::create_directories(submission("carol"));
    write_file(submission("bob.tar.gz"), "x");
    write_file(submission("alice.zip"), "x");
    write_file(submission("dave.TGZ"), "x");
    write_file(submission(".DS_Store"), "x");
    fs::create_directories(submission("__MACOSX"));
    const auto entries = list_submissions((root_ / "submissions").string());
    std::vector<std::string> ids;
    for (const std::string& e : entries) ids.push_back(student_id(e));
    EXPECT_EQ(ids, (std::vector<std::string>{"alice", "bob", "carol", "dave"}));
    EXPECT_EQ(fs::path(entries[0]).filename(), "alice.zip");

    fs::create_directories(submission("alice"));
    try {
        list_submissions((root_ / "submissions").string());
        FAIL() << "alice/ and alice.zip were both accepted";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("\"alice\""), std::string::npos) << what;
        EXPECT_NE(what.find("alice.zip"), std::string::npos) << what;
    }
    EXPECT_THROW(list_submissions((root_ / "nowhere").string()), std::runtime_error);
}

TEST_F(Intake, ExactLayoutTakenWithoutNotes) {
    write_file(submission("alice/starter/07-matmul/matmul.cu"), kMatmul);
    write_file(submission("alice/01-heat-rod/heat_rod.cu"), kHeatRod);
    const Submission s = take("alice");
    ASSERT_EQ(s.problem, "");
    EXPECT_EQ(s.student, "alice");
    ASSERT_EQ(s.labs.size(), labs_.size());
    const LabFiles* matmul = s.lab("07-matmul");
    ASSERT_NE(matmul, nullptr);
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    EXPECT_EQ(fs::path(matmul->files.at("matmul.cu")).parent_path().parent_path().parent_path(), fs::path(s.unpacked_dir));
    EXPECT_TRUE(matmul->notes.empty()) << joined(matmul->notes);
    EXPECT_EQ(taken_bytes(s, "01-heat-rod", "heat_rod.cu"), kHeatRod);
    EXPECT_TRUE(s.lab("02-heat-2d")->empty());
    EXPECT_EQ(s.lab("02-heat-2d")->missing, std::vector<std::string>{"heat_2d.cu"});
    EXPECT_TRUE(s.ignored.empty()) << joined(s.ignored);
    EXPECT_FALSE(s.empty());
}

TEST_F(Intake, ZipOfAFolderIsFoundOneLevelDown) {
    if (!have_tool("zip")) GTEST_SKIP() << "zip is not installed: this test checks what `zip -r` of a folder makes";
    write_file(root_ / "work/bob/starter/07-matmul/matmul.cu", kMatmul);
    write_file(root_ / "work/bob/starter/07-matmul/.matmul.cu.swp", "vim swap");
    const std::string cmd = "cd '" + (root_ / "work").string() + "' && zip -qr '" + submission("bob.zip").string() + "' bob";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const Submission s = take("bob.zip");
    ASSERT_EQ(s.problem, "");
    EXPECT_EQ(s.student, "bob");
    const LabFiles* matmul = s.lab("07-matmul");
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    ASSERT_EQ(matmul->notes.size(), 1u);
    EXPECT_NE(matmul->notes[0].find("found matmul.cu at bob/starter/07-matmul/matmul.cu in bob.zip"), std::string::npos)
        << matmul->notes[0];
    EXPECT_NE(matmul->notes[0].find("inside one folder"), std::string::npos) << matmul->notes[0];
    EXPECT_TRUE(any_contains(s.ignored, ".matmul.cu.swp")) << joined(s.ignored);
}

TEST_F(Intake, TarGzWithWrongFolderNamesIsFoundAndNoted) {
    write_archive(submission("carol.tar.gz"), "tar.gz",
                  {{"lab07/matmul.cu", kMatmul}, {"01_heat_rod/heat_rod.cu", kHeatRod}, {"Lab 2/Heat_2D.cu", "2d"}});
    const Submission s = take("carol.tar.gz");
    ASSERT_EQ(s.problem, "");
    EXPECT_EQ(s.student, "carol");
    const LabFiles* matmul = s.lab("07-matmul");
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    EXPECT_TRUE(any_contains(matmul->notes, "found matmul.cu at lab07/matmul.cu in carol.tar.gz")) << joined(matmul->notes);
    EXPECT_TRUE(any_contains(s.lab("01-heat-rod")->notes, "at 01_heat_rod/heat_rod.cu")) << joined(s.lab("01-heat-rod")->notes);
    const LabFiles* heat2d = s.lab("02-heat-2d");
    EXPECT_EQ(taken_bytes(s, "02-heat-2d", "heat_2d.cu"), "2d");
    EXPECT_TRUE(any_contains(heat2d->notes, "case differs")) << joined(heat2d->notes);
}

TEST_F(Intake, AFileNameFoundOnceAnywhereIsTaken) {
    write_file(submission("dave/homework/src/kernels/matmul.cu"), kMatmul);
    write_file(submission("dave/homework/README.md"), "my notes");
    const Submission s = take("dave");
    ASSERT_EQ(s.problem, "");
    const LabFiles* matmul = s.lab("07-matmul");
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    EXPECT_TRUE(any_contains(matmul->notes, "found matmul.cu at homework/src/kernels/matmul.cu in dave"))
        << joined(matmul->notes);
    EXPECT_EQ(s.ignored, std::vector<std::string>{"homework/README.md"});
}

TEST_F(Intake, TwoDifferentCandidatesAreReportedNotGuessed) {
    write_file(submission("erin/old/matmul.cu"), kMatmul);
    write_file(submission("erin/new/matmul.cu"), kMatmul + "// changed\n");
    write_file(submission("erin/a/heat_rod.cu"), kHeatRod);  // identical copies are one file, not two
    write_file(submission("erin/b/heat_rod.cu"), kHeatRod);
    const Submission s = take("erin");
    ASSERT_EQ(s.problem, "");
    const LabFiles* matmul = s.lab("07-matmul");
    EXPECT_TRUE(matmul->empty());
    EXPECT_EQ(matmul->ambiguous, std::vector<std::string>{"matmul.cu"});
    EXPECT_EQ(matmul->missing, std::vector<std::string>{"matmul.cu"});
    EXPECT_TRUE(any_contains(matmul->notes, "new/matmul.cu, old/matmul.cu")) << joined(matmul->notes);
    EXPECT_TRUE(any_contains(matmul->notes, "none was taken")) << joined(matmul->notes);
    EXPECT_TRUE(any_contains(s.ignored, "old/matmul.cu")) << joined(s.ignored);

    const LabFiles* heat = s.lab("01-heat-rod");
    EXPECT_EQ(taken_bytes(s, "01-heat-rod", "heat_rod.cu"), kHeatRod);
    EXPECT_TRUE(heat->ambiguous.empty());
    EXPECT_TRUE(any_contains(heat->notes, "identical copies at b/heat_rod.cu ignored")) << joined(heat->notes);
}

TEST_F(Intake, TheExactPlaceWinsOverAStrayCopy) {
    write_file(submission("fay/starter/07-matmul/matmul.cu"), kMatmul);
    write_file(submission("fay/backup/matmul.cu"), "an older attempt");
    const Submission s = take("fay");
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    EXPECT_TRUE(s.lab("07-matmul")->notes.empty()) << joined(s.lab("07-matmul")->notes);
    EXPECT_EQ(s.ignored, std::vector<std::string>{"backup/matmul.cu"});
}

TEST_F(Intake, ExtraFilesAndACopiedGraderAreListedAndNeverTaken) {
    write_archive(submission("gus.zip"), "zip",
                  {{"starter/07-matmul/matmul.cu", kMatmul},
                   {"starter/07-matmul/notes.txt", "todo"},
                   {"labs/07-matmul/lab.json", R"({"sources": ["matmul.cu"], "tests": []})"},
                   {"labs/07-matmul/matmul.h", "// my own interface"},
                   {"grader/labs/07-matmul/matmul_test.cpp", "TEST(Naive, MatchesOracle) {}"},
                   {"grader/CMakeLists.txt", "# always pass"},
                   {"build/a.o", "obj"},
                   {"build/b.o", "obj"},
                   {"build/libgrader.so", "obj"}});
    const Submission s = take("gus.zip");
    ASSERT_EQ(s.problem, "");
    const LabFiles* matmul = s.lab("07-matmul");
    EXPECT_EQ(matmul->files.size(), 1u);
    EXPECT_EQ(read_file(matmul->files.at("matmul.cu")), kMatmul);
    EXPECT_EQ(s.ignored, (std::vector<std::string>{"build/ (3 files)", "grader/ (2 files)", "labs/ (2 files)",
                                                   "starter/07-matmul/notes.txt"}));
    // Only the file lab.json lists ever reaches the disk: nothing else could reach a workspace.
    EXPECT_EQ(tree(s.unpacked_dir), std::vector<std::string>{"starter/07-matmul/matmul.cu"});
}

TEST_F(Intake, AnEmptySubmissionSaysSoAndIsNoError) {
    fs::create_directories(submission("hal"));
    write_archive(submission("ida.zip"), "zip", {{"README.txt", "I did not finish"}});
    for (const std::string name : {"hal", "ida.zip"}) {
        const Submission s = take(name);
        EXPECT_EQ(s.problem, "") << name;
        EXPECT_TRUE(s.empty()) << name;
        EXPECT_EQ(s.labs.size(), labs_.size());
        for (std::size_t i = 0; i < labs_.size(); ++i) EXPECT_EQ(s.labs[i].missing, labs_[i].sources) << s.labs[i].lab;
        ASSERT_EQ(s.notes.size(), 1u) << name;
        EXPECT_NE(s.notes[0].find("holds no file of any lab"), std::string::npos) << s.notes[0];
    }
}

TEST_F(Intake, ACorruptArchiveIsAProblemNotACrash) {
    write_archive(root_ / "good.zip", "zip", {{"starter/07-matmul/matmul.cu", std::string(50000, 'x') + kMatmul}});
    const std::string good = read_file(root_ / "good.zip");
    write_file(submission("jay.zip"), good.substr(0, good.size() / 2));  // truncated upload
    write_file(submission("kim.tar.gz"), "\x1f\x8b this is not gzip data at all");
    write_file(submission("lee.pdf"), "%PDF-1.4 a report, not a submission");
    write_file(submission("max.zip"), "");
    // libarchive's mtree format would read the contents of the files it names: not a format we accept.
    write_file(submission("moe.tar"), "#mtree\n./starter/07-matmul/matmul.cu type=file contents=/etc/passwd\n");
    for (const std::string name : {"jay.zip", "kim.tar.gz", "lee.pdf", "moe.tar"}) {
        const Submission s = take(name);
        EXPECT_NE(s.problem, "") << name;
        EXPECT_NE(s.problem.find(name), std::string::npos) << s.problem;
        EXPECT_TRUE(s.empty()) << name;
        EXPECT_TRUE(tree(s.unpacked_dir).empty()) << name;
    }
    const Submission empty = take("max.zip");  // a zero-byte upload holds nothing: empty, not corrupt
    EXPECT_EQ(empty.problem, "");
    EXPECT_TRUE(empty.empty());
}

TEST_F(Intake, PathTraversalIsRefusedAndNothingIsWrittenOutside) {
    const fs::path outside = root_ / "outside";
    fs::create_directories(outside);
    write_archive(submission("mal.tar.gz"), "tar.gz",
                  {{"../matmul.cu", "evil"},
                   {"starter/../../../matmul.cu", "evil"},
                   {(outside / "matmul.cu").string(), "evil"},
                   {"starter/07-matmul/matmul.cu", kMatmul}});
    const Submission s = take("mal.tar.gz");
    ASSERT_EQ(s.problem, "");
    EXPECT_EQ(taken_bytes(s, "07-matmul", "matmul.cu"), kMatmul);
    EXPECT_TRUE(any_contains(s.ignored, "../matmul.cu (refused: the path leaves the submission)")) << joined(s.ignored);
    EXPECT_TRUE(any_contains(s.ignored, "(refused: an absolute path)")) << joined(s.ignored);
    EXPECT_TRUE(tree(outside).empty());
    EXPECT_FALSE(fs::exists(root_ / "scratch" / "matmul.cu"));
    EXPECT_FALSE(fs::exists(root_ / "matmul.cu"));
    EXPECT_EQ(tree(s.unpacked_dir), std::vector<std::string>{"starter/07-matmul/matmul.cu"});
}

TEST_F(Intake, LinksAreNotFollowed) {
    const fs::path outside = root_ / "outside";
    fs::create_directories(outside);
    write_archive(submission("ned.tar.gz"), "tar.gz",
                  {{"starter/07-matmul/matmul.cu", "", Item::Symlink, "/etc/passwd"},
                   {"escape", "", Item::Symlink, outside.string()},
                   {"escape/heat_rod.cu", "through the link"},
                   {"starter/01-heat-rod/heat_rod.cu", "", Item::Hardlink, "/etc/passwd"}});
    const Submission s = take("ned.tar.gz");
    ASSERT_EQ(s.problem, "");
    EXPECT_TRUE(s.lab("07-matmul")->empty());
    EXPECT_TRUE(any_contains(s.ignored, "starter/07-matmul/matmul.cu -> /etc/passwd (a symbolic link: not followed)"))
        << joined(s.ignored);
    EXPECT_TRUE(any_contains(s.ignored, "(a hard link to /etc/passwd: not taken)")) << joined(s.ignored);
    EXPECT_TRUE(tree(outside).empty());
    // The file behind the never-made link lands in a real folder inside the scratch folder.
    EXPECT_FALSE(fs::is_symlink(fs::path(s.unpacked_dir) / "escape"));
    EXPECT_EQ(taken_bytes(s, "01-heat-rod", "heat_rod.cu"), "through the link");

    // A folder submission: its link is listed, not read.
    write_file(submission("ora/notes.txt"), "hi");
    fs::create_directories(submission("ora/starter/07-matmul"));
    fs::create_symlink("/etc/passwd", submission("ora/starter/07-matmul/matmul.cu"));
    fs::create_directory_symlink(outside, submission("ora/more"));
    const Submission folder = take("ora");
    ASSERT_EQ(folder.problem, "");
    EXPECT_TRUE(folder.lab("07-matmul")->empty());
    EXPECT_TRUE(any_contains(folder.ignored, "-> /etc/passwd (a symbolic link: not followed)")) << joined(folder.ignored);
    EXPECT_TRUE(tree(folder.unpacked_dir).empty());
}

TEST_F(Intake, CapsStopABombWithAMessage) {
    IntakeLimits limits;
    limits.max_total_bytes = 1 << 20;
    write_archive(submission("pat.zip"), "zip", {{"starter/07-matmul/matmul.cu", std::string(8 << 20, '\0')}});
    write_archive(submission("quin.tar.gz"), "tar.gz", {{"data/big.bin", std::string(8 << 20, '\0')}});
    for (const std::string name : {"pat.zip", "quin.tar.gz"}) {
        const Submission s = take(name, limits);
        EXPECT_NE(s.problem.find("more than 1 MiB once unpacked"), std::string::npos) << name << ": " << s.problem;
        EXPECT_TRUE(tree(s.unpacked_dir).empty()) << name;
    }
    std::vector<Item> many;
    for (int i = 0; i < 50; ++i) many.push_back({"empty/" + std::to_string(i), ""});
    write_archive(submission("ray.zip"), "zip", many);
    limits.max_entries = 10;
    const Submission s = take("ray.zip", limits);
    EXPECT_NE(s.problem.find("more than 10 files and folders"), std::string::npos) << s.problem;
}

TEST_F(Intake, SameFilesGiveTheSameHashWhateverTheArchiveAndOneByteChangesIt) {
    const std::vector<Item> files = {{"starter/07-matmul/matmul.cu", kMatmul}, {"starter/01-heat-rod/heat_rod.cu", kHeatRod}};
    write_archive(submission("sam.zip"), "zip", files, 1600000000);
    write_archive(submission("sam2.tar.gz"), "tar.gz", files, 1700000000);
    write_archive(submission("sam3.tar.gz"), "tar.gz",
                  {{"sam/lab07/matmul.cu", kMatmul}, {"sam/starter/01-heat-rod/heat_rod.cu", kHeatRod}});
    write_file(submission("sam4/starter/07-matmul/matmul.cu"), kMatmul);
    std::string one_byte_off = kMatmul;
    one_byte_off[20] ^= 1;
    write_archive(submission("tom.zip"), "zip",
                  {{"starter/07-matmul/matmul.cu", one_byte_off},
                   {"starter/01-heat-rod/heat_rod.cu", kHeatRod}});
    const Submission zip = take("sam.zip"), tar = take("sam2.tar.gz"), moved = take("sam3.tar.gz"),
                     folder = take("sam4"), changed = take("tom.zip");
    const std::string hash = zip.lab("07-matmul")->content_hash;
    EXPECT_EQ(hash.size(), 64u);
    EXPECT_EQ(tar.lab("07-matmul")->content_hash, hash);
    EXPECT_EQ(moved.lab("07-matmul")->content_hash, hash);
    EXPECT_EQ(folder.lab("07-matmul")->content_hash, hash);
    EXPECT_NE(changed.lab("07-matmul")->content_hash, hash);
    EXPECT_EQ(changed.lab("01-heat-rod")->content_hash, zip.lab("01-heat-rod")->content_hash);
    EXPECT_NE(zip.lab("01-heat-rod")->content_hash, hash);
    EXPECT_NE(zip.lab("02-heat-2d")->content_hash, zip.lab("03-gaussian-blur")->content_hash);  // empty labs differ too
}

TEST_F(Intake, AScratchFolderInUseIsRefused) {
    write_file(submission("uma/starter/07-matmul/matmul.cu"), kMatmul);
    write_file(root_ / "used/leftover", "x");
    EXPECT_THROW(take_submission(submission("uma").string(), (root_ / "used").string(), labs_), std::invalid_argument);
    EXPECT_EQ(read_file(root_ / "used/leftover"), "x");
}

}  // namespace
}  // namespace gpulab::grade_class
