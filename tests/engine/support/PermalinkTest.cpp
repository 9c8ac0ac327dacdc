// Permalinks: round trip, and hostile fragments rejected with a clear layer.
#include "TestUtil.h"

#include "cachekey/Permalink.h"

#include <zstd.h>

using namespace cachekey;
using namespace cachekey::test;

TEST(Permalink, RoundTripsExactly) {
  std::string json = R"({"schema":1,"base":"add_1x1","flags":{"XLA_FLAGS":"--xla_gpu_autotune_level=1 \u3000é"}})";
  std::string link = encodePermalink(json);
  EXPECT_EQ(link.rfind("s1=", 0), 0u);
  EXPECT_LE(link.size(), 300u);
  auto back = decodePermalink("#" + link);
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(*back, json);
}

TEST(Permalink, Base64UrlMatchesRfc4648) {
  // RFC 4648 §10 test vectors, in the URL alphabet without padding.
  EXPECT_EQ(base64UrlEncode("f"), "Zg");
  EXPECT_EQ(base64UrlEncode("foob"), "Zm9vYg");
  EXPECT_EQ(base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(*base64UrlDecode("-_8"), "\xfb\xff");
}

TEST(Permalink, HostileFragmentsAreErrors) {
  std::string good = encodePermalink(R"({"schema":1})");
  std::string body = good.substr(3);
  auto bomb = [] {
    std::string big(10 << 20, 'a');
    Bytes out(ZSTD_compressBound(big.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), big.data(), big.size(), 3));
    return std::string(kPermalinkPrefix) + base64UrlEncode(out);
  }();
  struct Case {
    std::string fragment, fragmentOfMessage;
  } cases[] = {
      {"", "not a cachekey link"},
      {"#x=1", "not a cachekey link"},
      {"#s2=abc", "encoding version \"2\""},
      {"s1=", "not a zstd frame"},
      {"s1=ab*d", "character '*' at offset 2"},
      {"s1=a", "truncated"},
      {"s1=" + base64UrlEncode("hello world, not zstd"), "not a zstd frame"},
      {"s1=" + body.substr(0, body.size() - 4), "truncated"},
      {good + "AAAA", "after the zstd frame"},
      {bomb, "cap"},
  };
  for (const auto &c : cases) {
    auto r = decodePermalink(c.fragment);
    ASSERT_FALSE(r) << c.fragment;
    EXPECT_EQ(r.error().source, "permalink");
    EXPECT_TRUE(r.error().code == ErrorCode::Syntax ||
                r.error().code == ErrorCode::TooLarge)
        << errorCodeName(r.error().code);
    EXPECT_NE(r.error().message.find(c.fragmentOfMessage), std::string::npos)
        << c.fragment << " → " << r.error().message;
  }
}

TEST(Permalink, Base64ErrorsNameTheLinksAlphabet) {
  // A character neither alphabet has: base64Decode finds it and says
  // "base64url", the link's encoding, without its message being rewritten.
  auto r = decodePermalink(std::string(kPermalinkPrefix) + "AB!D");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "invalid base64url: character '!' at offset 2")
      << r.error().str();
  auto plain = base64Decode("AB!D");
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().message, "invalid base64: character '!' at offset 2");
}
