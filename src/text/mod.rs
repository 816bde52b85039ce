//! Text in the forms the workshop shows and keys by: made harmless to a terminal (`inert`), made
//! short for a report (`shorten`), written the way Python prints it (`pyrepr`), and canonical
//! JSON with the replay key (`canonical`).

pub(crate) mod canonical;
pub(crate) mod inert;
pub(crate) mod pyrepr;
pub(crate) mod shorten;
