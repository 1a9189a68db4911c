// Box3D's joint grid (shared/benchmarks.c, CreateJointGrid), stepped as Box3D's benchmark steps
// it (1/60 s, 4 substeps, one worker): prints, after 100 steps, the largest distance between a
// joint's two anchors and the lowest ball's height, to set beside minirigid's (benches/dynamics.rs
// joint_grid prints the same two figures). Build against Box3D built as
// ../shared/notes/benchmark-suite.md says, from its checkout:
//   cc -O2 -I include PATH/TO/joint_grid_quality.c build/src/libbox3d.a -lm -lpthread -o jg_quality
#include "box3d/box3d.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main( void )
{
	b3WorldDef worldDef = b3DefaultWorldDef();
	worldDef.workerCount = 1;
	b3WorldId worldId = b3CreateWorld( &worldDef );
	b3World_EnableSleeping( worldId, false );
	int n = 100;
	b3BodyId* bodies = malloc( n * n * sizeof( b3BodyId ) );
	b3JointId* joints = malloc( 2 * n * n * sizeof( b3JointId ) );
	int jointCount = 0, index = 0;
	b3ShapeDef shapeDef = b3DefaultShapeDef();
	shapeDef.filter.categoryBits = 2;
	shapeDef.filter.maskBits = ~2u;
	b3Sphere sphere = { { 0.0f, 0.0f, 0.0f }, 0.4f };
	b3SphericalJointDef jointDef = b3DefaultSphericalJointDef();
	b3BodyDef bodyDef = b3DefaultBodyDef();
	bodyDef.enableSleep = false;
	for ( int k = 0; k < n; ++k )
	{
		for ( int i = 0; i < n; ++i )
		{
			bodyDef.type = i == 0 ? b3_staticBody : b3_dynamicBody;
			bodyDef.position = (b3Pos){ (float)k, -(float)i, 0.0f };
			b3BodyId body = b3CreateBody( worldId, &bodyDef );
			b3CreateSphereShape( body, &shapeDef, &sphere );
			if ( i > 0 )
			{
				jointDef.base.bodyIdA = bodies[index - 1];
				jointDef.base.bodyIdB = body;
				jointDef.base.localFrameA.p = (b3Vec3){ 0.0f, -0.5f, 0.0f };
				jointDef.base.localFrameB.p = (b3Vec3){ 0.0f, 0.5f, 0.0f };
				joints[jointCount++] = b3CreateSphericalJoint( worldId, &jointDef );
			}
			if ( k > 0 )
			{
				jointDef.base.bodyIdA = bodies[index - n];
				jointDef.base.bodyIdB = body;
				jointDef.base.localFrameA.p = (b3Vec3){ 0.5f, 0.0f, 0.0f };
				jointDef.base.localFrameB.p = (b3Vec3){ -0.5f, 0.0f, 0.0f };
				joints[jointCount++] = b3CreateSphericalJoint( worldId, &jointDef );
			}
			bodies[index++] = body;
		}
	}
	for ( int step = 0; step < 100; ++step )
	{
		b3World_Step( worldId, 1.0f / 60.0f, 4 );
	}
	float gap = 0.0f, lowest = 1e9f;
	for ( int j = 0; j < jointCount; ++j )
	{
		b3Pos pa = b3Body_GetWorldPoint( b3Joint_GetBodyA( joints[j] ), b3Joint_GetLocalFrameA( joints[j] ).p );
		b3Pos pb = b3Body_GetWorldPoint( b3Joint_GetBodyB( joints[j] ), b3Joint_GetLocalFrameB( joints[j] ).p );
		float dx = pb.x - pa.x, dy = pb.y - pa.y, dz = pb.z - pa.z;
		float d = sqrtf( dx * dx + dy * dy + dz * dz );
		gap = d > gap ? d : gap;
	}
	for ( int b = 0; b < n * n; ++b )
	{
		b3Pos p = b3Body_GetPosition( bodies[b] );
		lowest = p.y < lowest ? p.y : lowest;
	}
	printf( "box3d joint_grid: largest anchor gap %.4f m, lowest ball at y %.3f\n", gap, lowest );
	return 0;
}
