/*
 * tags.h — the message tags of the collective engine's point-to-point
 * messages, on the engine's own duplicate of the file's communicator.
 *
 * The tags are listed here, not in the files that send, because the
 * counting layer (tools/resonio-count) sorts the messages it sees by them:
 * RIO_TAG_DATA with bytes in it carries file data, every other tag and an
 * empty RIO_TAG_DATA message (the end of a drain) carries none.
 */
#ifndef RIO_COLL_TAGS_H
#define RIO_COLL_TAGS_H

#define RIO_TAG_META 11  /* a rank's pieces' coordinates, to an aggregator */
#define RIO_TAG_DATA 12  /* data of a round (empty: the end of a drain) */
#define RIO_TAG_TOKEN 13 /* an aggregator's turn at storage, passed on */
#define RIO_TAG_TURN 14  /* a rank's turn in the token mode */
#define RIO_TAG_ROWS 15  /* the summary's rows, from rank 0 to an aggregator */

#endif
