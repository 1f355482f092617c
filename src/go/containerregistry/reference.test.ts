import { describe, expect, it } from "vitest";
import { parseImageReference } from "./reference.js";

const DIGEST = "sha256:deadb33fdeadb33fdeadb33fdeadb33fdeadb33fdeadb33fdeadb33fdeadb33f";
const VECTOR_DIGEST = "sha256:4f3d2a0c9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817065e4d";

describe("parseImageReference accepts", () => {
  // go-containerregistry tag_test.go, digest_test.go and ref_test.go (weak validation accepts all of them).
  const fromGoTests = [
    "gcr.io/g-convoy/hello-world:latest",
    "gcr.io/google.com/g-convoy/hello-world:latest",
    "gcr.io/project-id/with-nums:v2",
    "us.gcr.io/project-id/image:with.period.in.tag",
    "gcr.io/project-id/image:w1th-alpha_num3ric.PLUScaps",
    "domain.with.port:9001/image:latest",
    "namespace/pathcomponent/image",
    "library/ubuntu",
    "gcr.io/project-id/implicit-latest",
    "www.example.test:12345/repo/path",
    "gcr.io/g-convoy/hello-world@" + DIGEST,
    "gcr.io/google.com/project-id/hello-world@" + DIGEST,
    "us.gcr.io/project-id/sub-repo@" + DIGEST,
    "example.text/foo/bar@" + DIGEST,
    "namespace/pathcomponent/image@" + DIGEST,
    "library/ubuntu@" + DIGEST,
    "example.text/foo/bar:latest@" + DIGEST,
    "example.text:8443/foo/bar:latest@" + DIGEST,
    "example.text/foo/bar:v1.0.0-alpine@" + DIGEST,
    "nginx:latest@" + DIGEST,
    "library/nginx:latest@" + DIGEST,
    "gcr.io/g-convoy/hello-world",
    "index.docker.io/library/ubuntu",
    "mirror.gcr.io/ubuntu",
    "localhost/testimage",
    "ubuntu",
  ];
  // Images the conformance vectors accept.
  const fromVectors = [
    "ghcr.io/knative/helloworld-go:latest",
    "busybox",
    "busybox:1.36",
    "nginx",
    "alpine",
    "us-docker.pkg.dev/proj/repo/team/service/app:2024.05.14",
    "gcr.io/knative-samples/helloworld-go",
    "10.0.0.12:5000/app:1",
    "docker.io/library/nginx:1.25.3",
    "ghcr.io/example/greeter@" + VECTOR_DIGEST,
    "ghcr.io/example/app:v2@" + VECTOR_DIGEST,
    "ghcr.io/example/app:", // an empty tag is not checked under weak validation
  ];
  // Registry forms Go's url.Parse("//" + registry) keeps intact.
  const registries = [
    "localhost:5000/foo",
    "gcr.io:/foo", // empty port
    ":5000/foo",
    "[::1]:5000/foo:tag",
    "[2001:db8::1]/foo",
    "a:1:2/foo", // Go 1.23 only checks the text after the last colon
    "ex_ample.com/foo",
    "ex~ample.com/foo",
    "münchen.de/foo", // non-ASCII hosts pass url.Parse unchanged
  ];
  // Quirks of the Go code (pkg/name) that a summary of the reference grammar would not mention.
  const quirks = [
    "https://ghcr.io/example/app:v1", // registry "https:", repository "/ghcr.io/example/app"
    "ab",
    "a".repeat(255),
    "ghcr.io/" + "a".repeat(255),
    "ghcr.io/" + "a".repeat(250) + "@" + DIGEST,
    "ghcr.io/example/app:" + "v".repeat(128), // checkTag allows 128 characters
    "nginx:",
    // Docker Hub's implicit "library/" counts toward 255 only when a digest reference re-parses its base.
    "a".repeat(247) + "@" + DIGEST,
    "docker.io/" + "a".repeat(247) + "@" + DIGEST,
    "docker.io/x/" + "a".repeat(250) + "@" + DIGEST,
    "xdocker.io/" + "a".repeat(250) + "@" + DIGEST,
    "a".repeat(255) + ":tag",
  ];

  it.each([...fromGoTests, ...fromVectors, ...registries, ...quirks])("%j", (image) => {
    expect(parseImageReference(image)).toBeUndefined();
  });
});

describe("parseImageReference rejects", () => {
  const fromGoTests = [
    "gcr.io/project-id/bad_chars:c@n'tuse",
    "gcr.io/project-id/wrong-length:white space",
    "gcr.io/project-id/too-many-chars:thisisthetagthatneverendsitgoesonandonmyfriendsomepeoplestartedtaggingitnotknowingwhatitwasandtheyllcontinuetaggingitforeverjustbecausethisisthetagthatneverends",
    "gcr.io/project-id/unknown-alg@unknown:abc123",
    "gcr.io/project-id/wrong-length@sha256:d34db33fd34db33f",
    "gcr.io/project-id/missing-digest@",
    "white space",
    "b@char/image",
    "",
  ];
  const fromVectors = [
    "ghcr.io/Example/App:v1",
    "ghcr.io/example/app:" + "v".repeat(129),
    "Busy Box",
    "ghcr.io/example/my app:v1",
    "ghcr.io/example/app@sha256:abc123",
    "ghcr.io/example/app:v1:extra",
    "y",
  ];
  const registries = [
    "gcr?com/foo",
    "host:abc/foo",
    "[::1/foo",
    "[::1]x/foo",
    "user@host.com/foo",
    "a%41.com/foo",
    "a%25.com/foo",
    "exa mple.com/foo",
    "a#b.com/foo",
    "ex^ample.com/foo",
    "ex\u0001ample.com/foo",
  ];
  const limits = [
    "a", // repositories need two characters
    "ghcr.io/a",
    "a".repeat(256),
    "ghcr.io/example/app:" + "v".repeat(129),
    "ghcr.io/example/app@sha512:" + "0".repeat(64), // NewDigest takes sha256 only
    "ghcr.io/example/app@" + "h".repeat(71),
    "ghcr.io/example/app@" + DIGEST + "0",
    "ghcr.io/example/app@" + DIGEST.slice(0, -1),
    "ghcr.io/example/app@" + DIGEST.toUpperCase(),
    "ghcr.io/example/app@@" + DIGEST,
    "ghcr.io/example/app:tag@",
    // Docker Hub names gain "library/" when a digest reference re-parses its tag part: 258 > 255.
    "a".repeat(250) + "@" + DIGEST,
    "a".repeat(250) + ":tag@" + DIGEST,
    "a".repeat(248) + "@" + DIGEST,
    "docker.io/" + "a".repeat(248) + "@" + DIGEST,
    "index.docker.io/" + "a".repeat(250) + ":v1@" + DIGEST,
    "ghcr.io/example/Ü",
    "ghcr.io/example/app:vé",
  ];

  it.each([...fromGoTests, ...fromVectors, ...registries, ...limits])("%j", (image) => {
    expect(parseImageReference(image)).toBe("could not parse reference: " + image);
  });

  it("renders the vectors' error text", () => {
    expect(parseImageReference("Busy Box")).toBe("could not parse reference: Busy Box");
    expect(parseImageReference("ghcr.io/Example/App:v1")).toBe("could not parse reference: ghcr.io/Example/App:v1");
  });
});
