//! The corpus's word lists: every name, role, team, cause, limit, class, window and dependency
//! the generator draws from (invented here; the module doc of `corpus` says which few come from
//! mcp-ragdown's write-up), and the codenames of the alias questions.

/// One codename per document, for the alias questions: words no runbook otherwise uses.
pub(super) const CODENAMES: &[&str] = &[
    "Quartz",
    "Onyx",
    "Garnet",
    "Topaz",
    "Beryl",
    "Agate",
    "Opal",
    "Pyrite",
    "Galena",
    "Mica",
    "Feldspar",
    "Gypsum",
    "Calcite",
    "Dolomite",
    "Zircon",
    "Spinel",
    "Olivine",
    "Obsidian",
    "Malachite",
    "Azurite",
    "Hematite",
    "Magnetite",
    "Fluorite",
    "Cinnabar",
    "Rhodonite",
    "Tourmaline",
    "Peridot",
    "Jadeite",
    "Corundum",
    "Sphalerite",
];

pub(super) const BIRDS: &[&str] = &[
    "Kestrel",
    "Falcon",
    "Harrier",
    "Goshawk",
    "Buzzard",
    "Kite",
    "Condor",
    "Albatross",
    "Cormorant",
    "Pelican",
    "Flamingo",
    "Stork",
    "Crane",
    "Lapwing",
    "Sandpiper",
    "Kingfisher",
    "Nightjar",
    "Shearwater",
    "Starling",
    "Thrush",
    "Warbler",
    "Finch",
    "Bunting",
    "Nuthatch",
    "Magpie",
    "Jackdaw",
    "Raven",
    "Grebe",
    "Fulmar",
    "Skua",
];

/// The ten roles, each with what such a service does (the rest of the Overview's first sentence).
pub(super) const ROLES: &[(&str, &str)] = &[
    (
        "Ingest",
        "receives telemetry batches from field agents and appends them to the event stream",
    ),
    (
        "Proxy",
        "fronts the public API, checks access tokens and forwards each call to the service behind it",
    ),
    (
        "Invoicer",
        "turns metered usage into monthly invoices and hands them to the payment provider",
    ),
    (
        "Dispatcher",
        "assigns queued jobs to worker nodes and retries the ones that time out",
    ),
    (
        "Catalog",
        "keeps the product catalogue and answers item lookups for the storefront",
    ),
    (
        "Mailer",
        "renders transactional email from templates and passes it to the outbound relay",
    ),
    (
        "Accounts",
        "stores user profiles and answers identity lookups for the other services",
    ),
    (
        "Balancer",
        "spreads tenant traffic across regions according to their capacity and health",
    ),
    (
        "Backup",
        "takes nightly snapshots of the primary stores and runs the monthly restore drill",
    ),
    (
        "Matcher",
        "merges duplicate customer records arriving from the CRM and the order system",
    ),
];

pub(super) const TEAMS: &[&str] = &[
    "Aurora",
    "Basalt",
    "Cobalt",
    "Driftwood",
    "Ember",
    "Fjord",
    "Glacier",
    "Horizon",
    "Indigo",
    "Kelp",
];

pub(super) const LANGUAGES: &[&str] = &["Go", "Rust", "Java", "Kotlin", "Scala", "Python", "Ruby"];

pub(super) const FIRST_NAMES: &[&str] = &[
    "Amara", "Bjorn", "Chiara", "Dawit", "Elif", "Farid", "Greta", "Hamid", "Isabela", "Jonas", "Keiko", "Luca", "Mei",
    "Nikolai", "Oksana", "Pablo", "Quynh", "Rania", "Sven", "Thandiwe",
];

pub(super) const LAST_NAMES: &[&str] = &[
    "Andersen",
    "Bergstrom",
    "Chukwu",
    "Delgado",
    "Eriksen",
    "Fontaine",
    "Gupta",
    "Horvath",
    "Ivanova",
    "Jimenez",
    "Kovacs",
    "Lombardi",
    "Moreau",
    "Nakamura",
    "Oyelaran",
    "Petrov",
];

pub(super) const CAUSE_A: &[&str] = &[
    "an expired signing key",
    "a saturated thread pool",
    "a forgotten debug flag",
    "a DNS resolver timeout",
    "an unbounded retry loop",
    "a corrupted cache entry",
    "a slow memory leak",
    "a dropped database index",
    "a misrouted health probe",
    "an oversized request payload",
];

pub(super) const CAUSE_B: &[&str] = &[
    "in the canary pool",
    "on the us-east workers",
    "after the 3.8 upgrade",
    "during the weekly backup",
    "in the secondary region",
    "on the ingress nodes",
];

/// Ascending, so a production limit (drawn at least two places above staging's) is the larger.
pub(super) const MEMORY_LIMITS: &[&str] = &[
    "128Mi", "256Mi", "384Mi", "512Mi", "1Gi", "1536Mi", "2Gi", "3Gi", "4Gi", "8Gi",
];

/// Ascending in size, for the same reason.
pub(super) const DB_CLASSES: &[&str] = &[
    "db.t3.small",
    "db.t3.large",
    "db.m5.large",
    "db.m5.2xlarge",
    "db.m7g.xlarge",
    "db.r5.2xlarge",
    "db.r6i.4xlarge",
    "db.x2g.8xlarge",
];

pub(super) const WINDOWS: &[&str] = &[
    "Monday 10:00-12:00 UTC",
    "Tuesday 16:00-18:00 UTC",
    "Thursday 08:00-10:00 UTC",
    "Friday 11:00-13:00 UTC",
];

pub(super) const DEPENDENCIES: &[(&str, &str)] = &[
    ("postgres", "system of record"),
    ("valkey", "session and rate-limit cache"),
    ("rabbitmq", "work queue"),
    ("consul", "service discovery"),
    ("vault", "secret storage"),
    ("opensearch", "full-text search"),
    ("cassandra", "time-series store"),
    ("zookeeper", "distributed locks"),
];
