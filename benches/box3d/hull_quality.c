// Box3D's junkyard, washer and convex pile (shared/benchmarks.c), created and stepped as Box3D's benchmark
// does (1/60 s, 4 substeps, one worker, the scene's step function before each step): prints,
// after the scene's steps, the lowest point of a dynamic body's box (the ground's top is at 0
// in both) and the depths of the last step's overlapping contact points (each manifold point's
// negative separation, each contact once): the median, the 99th percentile and the deepest,
// of all and per kind of the other body, with Box3D's contact recycling as it comes (on:
// Box3D's default) or turned off on every body (`norecycle`), to set beside minirigid's
// (`box3d_protocol --lowest` prints the same figures); with `trace`, every 25 steps, the
// overlapping points between two dynamic bodies (`box3d_protocol --trace`). Build against
// Box3D built as ../shared/notes/benchmark-suite.md says, from its checkout:
//   cc -O2 -I include -I . PATH/TO/hull_quality.c build/shared/libshared.a build/src/libbox3d.a -lm -lpthread -o hull_quality
//   ./hull_quality junkyard|washer|convex_pile [norecycle] [trace]
#include "box3d/box3d.h"
#include "shared/benchmarks.h"
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int CompareFloats( const void* a, const void* b )
{
	float x = *(const float*)a, y = *(const float*)b;
	return ( x > y ) - ( x < y );
}

typedef struct Found
{
	b3BodyId* bodies;
	int count, capacity;
} Found;

// Each dynamic body once (a body's shapes are reported one after the other).
static bool Collect( b3ShapeId shapeId, void* context )
{
	Found* found = context;
	b3BodyId body = b3Shape_GetBody( shapeId );
	if ( found->count > 0 && B3_ID_EQUALS( found->bodies[found->count - 1], body ) )
	{
		return true;
	}
	if ( found->count == found->capacity )
	{
		found->capacity = 2 * found->capacity + 64;
		found->bodies = realloc( found->bodies, found->capacity * sizeof( b3BodyId ) );
	}
	found->bodies[found->count++] = body;
	return true;
}

static Found AllBodies( b3WorldId worldId )
{
	Found found = { 0 };
	b3AABB everywhere = { { -1e4f, -1e4f, -1e4f }, { 1e4f, 1e4f, 1e4f } };
	b3World_OverlapAABB( worldId, everywhere, b3DefaultQueryFilter(), Collect, &found );
	return found;
}

// A growing list of depths (m).
typedef struct Depths
{
	float* values;
	int count, capacity;
} Depths;

static void Push( Depths* d, float depth )
{
	if ( d->count == d->capacity )
	{
		d->capacity = 2 * d->capacity + 1024;
		d->values = realloc( d->values, d->capacity * sizeof( float ) );
	}
	d->values[d->count++] = depth;
}

// Sorts `d`; its median, 99th percentile and deepest (zeros for none).
static void Summarize( Depths* d, float out[3] )
{
	int n = d->count;
	qsort( d->values, n, sizeof( float ), CompareFloats );
	out[0] = n > 0 ? d->values[(int)( 0.5f * ( n - 1 ) + 0.5f )] : 0.0f;
	out[1] = n > 0 ? d->values[(int)( 0.99f * ( n - 1 ) + 0.5f )] : 0.0f;
	out[2] = n > 0 ? d->values[n - 1] : 0.0f;
}

// What the world's dynamic bodies show now: the overlapping contact points' depths (each
// manifold point's negative separation, each contact once) per kind of the other body (0
// static, 1 kinematic, 2 dynamic), how many dynamic bodies there are and the lowest point of
// their boxes.
typedef struct Seen
{
	Depths byKind[3];
	int dynamic;
	float lowest;
} Seen;

static Seen Look( b3WorldId worldId )
{
	Seen seen = { .lowest = FLT_MAX };
	Found all = AllBodies( worldId );
	b3ContactData* data = NULL;
	int dataCapacity = 0;
	for ( int k = 0; k < all.count; ++k )
	{
		b3BodyId body = all.bodies[k];
		if ( b3Body_GetType( body ) != b3_dynamicBody )
		{
			continue;
		}
		seen.dynamic += 1;
		b3AABB box = b3Body_ComputeAABB( body );
		seen.lowest = box.lowerBound.y < seen.lowest ? box.lowerBound.y : seen.lowest;
		int capacity = b3Body_GetContactCapacity( body );
		if ( capacity > dataCapacity )
		{
			dataCapacity = capacity;
			data = realloc( data, dataCapacity * sizeof( b3ContactData ) );
		}
		int count = b3Body_GetContactData( body, data, capacity );
		for ( int c = 0; c < count; ++c )
		{
			// Each contact once: from the body of its first shape, or of its second where the
			// first is not dynamic (only dynamic bodies are visited).
			b3BodyId bodyA = b3Shape_GetBody( data[c].shapeIdA );
			b3BodyId bodyB = b3Shape_GetBody( data[c].shapeIdB );
			if ( !B3_ID_EQUALS( bodyA, body ) && b3Body_GetType( bodyA ) == b3_dynamicBody )
			{
				continue;
			}
			b3BodyType other = b3Body_GetType( B3_ID_EQUALS( bodyA, body ) ? bodyB : bodyA );
			int kind = other == b3_staticBody ? 0 : other == b3_kinematicBody ? 1 : 2;
			for ( int m = 0; m < data[c].manifoldCount; ++m )
			{
				const b3Manifold* manifold = data[c].manifolds + m;
				for ( int p = 0; p < manifold->pointCount; ++p )
				{
					float depth = -manifold->points[p].separation;
					if ( depth > 0.0f )
					{
						Push( seen.byKind + kind, depth );
					}
				}
			}
		}
	}
	free( data );
	free( all.bodies );
	return seen;
}

static void Forget( Seen* seen )
{
	for ( int k = 0; k < 3; ++k )
	{
		free( seen->byKind[k].values );
	}
}

// `trace`: after step `step`, the overlapping contact points between two dynamic bodies, their
// median, 99th percentile and deepest depth, and how many are deeper than 10 cm, as
// `box3d_protocol --trace` prints minirigid's.
static void Trace( b3WorldId worldId, int step )
{
	Seen seen = Look( worldId );
	Depths* moving = seen.byKind + 2;
	int deep = 0;
	for ( int k = 0; k < moving->count; ++k )
	{
		deep += moving->values[k] > 0.1f;
	}
	float s[3];
	Summarize( moving, s );
	printf( "  trace,%d,%d points,%.4f,%.4f,%.4f,%d deeper than 0.1\n", step, moving->count, s[0], s[1], s[2], deep );
	Forget( &seen );
}

int main( int argc, char** argv )
{
	const char* scene = argc > 1 ? argv[1] : "junkyard";
	bool recycle = true, trace = false;
	for ( int k = 2; k < argc; ++k )
	{
		recycle = recycle && strcmp( argv[k], "norecycle" ) != 0;
		trace = trace || strcmp( argv[k], "trace" ) == 0;
	}
	bool junkyard = strcmp( scene, "junkyard" ) == 0;
	bool pile = strcmp( scene, "convex_pile" ) == 0;
	b3WorldDef worldDef = b3DefaultWorldDef();
	worldDef.workerCount = 1;
	if ( junkyard )
	{
		GetJunkyardCapacity( &worldDef.capacity );
	}
	else if ( pile )
	{
		GetConvexPileCapacity( &worldDef.capacity );
	}
	else
	{
		GetWasherCapacity( &worldDef.capacity );
	}
	b3WorldId worldId = b3CreateWorld( &worldDef );
	int steps = junkyard || pile ? 500 : 1000;
	if ( junkyard )
	{
		CreateJunkyard( worldId );
	}
	else if ( pile )
	{
		CreateConvexPile( worldId );
	}
	else
	{
		CreateWasher( worldId );
	}
	if ( !recycle )
	{
		Found all = AllBodies( worldId );
		for ( int k = 0; k < all.count; ++k )
		{
			b3Body_EnableContactRecycling( all.bodies[k], false );
		}
		free( all.bodies );
	}
	for ( int step = 0; step < steps; ++step )
	{
		if ( junkyard )
		{
			StepJunkyard( worldId, step );
		}
		b3World_Step( worldId, 1.0f / 60.0f, 4 );
		if ( trace && ( step + 1 ) % 25 == 0 )
		{
			Trace( worldId, step + 1 );
		}
	}
	Seen seen = Look( worldId );
	Depths all = { 0 };
	for ( int k = 0; k < 3; ++k )
	{
		for ( int i = 0; i < seen.byKind[k].count; ++i )
		{
			Push( &all, seen.byKind[k].values[i] );
		}
	}
	float s[3];
	Summarize( &all, s );
	printf( "%s recycling %s: %d dynamic bodies, lowest %.4f m; contact depths (%d points) median %.4f, "
			"p99 %.4f, deepest %.4f m\n",
			scene, recycle ? "on" : "off", seen.dynamic, seen.lowest, all.count, s[0], s[1], s[2] );
	const char* kindNames[3] = { "static", "kinematic", "dynamic" };
	for ( int k = 0; k < 3; ++k )
	{
		Summarize( seen.byKind + k, s );
		printf( "  with a %s body: %d points, median %.4f, p99 %.4f, deepest %.4f m\n", kindNames[k],
				seen.byKind[k].count, s[0], s[1], s[2] );
	}
	free( all.values );
	Forget( &seen );
	b3DestroyWorld( worldId );
	return 0;
}
